// Preloaded with NODE_OPTIONS="--require …/cpu-profile.cjs" (where --cpu-prof is not allowed): profiles the process
// from its start and writes a .cpuprofile into BENCH_CPU_PROFILE_DIR when it exits normally.
const { Session } = require("node:inspector");
const { writeFileSync } = require("node:fs");
const { join } = require("node:path");

const dir = process.env.BENCH_CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.start");
  process.on("exit", () => {
    // The main thread's session answers synchronously.
    session.post("Profiler.stop", (error, result) => {
      if (!error) writeFileSync(join(dir, `runner-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
