// For servers that bench/mcp.ts measures: SIGUSR2 runs a full garbage collection (exposed at start through V8 flags)
// and prints process.memoryUsage() as a JSON line on stdout, so memory is read after garbage is gone.
import v8 from "node:v8";
import { runInNewContext } from "node:vm";

export function reportMemoryOnSignal(): void {
  v8.setFlagsFromString("--expose-gc");
  const collectGarbage = runInNewContext("gc") as () => void;
  process.on("SIGUSR2", () => {
    collectGarbage();
    console.log(JSON.stringify(process.memoryUsage()));
  });
}
