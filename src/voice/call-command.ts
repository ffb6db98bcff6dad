// `agent-platform call [--public] [--port N] [--tools PATH]`: runs the call server until Ctrl-C.
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "../config.ts";
import { ToolsFileError } from "../tools/custom.ts";
import { CallServerError, startCallServer } from "./call-server.ts";
import { TunnelError } from "./tunnel.ts";

const DEFAULT_PORT = 8090;
const USAGE = "usage: agent-platform call [--public] [--port N] [--tools PATH]";

/** Runs until SIGINT/SIGTERM; resolves with the process exit code. */
export async function runCallCommand(args: string[]): Promise<number> {
  let flags: { public?: boolean; port?: string; tools?: string; help?: boolean };
  try {
    flags = parseArgs({
      args,
      options: {
        public: { type: "boolean" },
        port: { type: "string" },
        tools: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }).values;
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if (flags.help) {
    console.log(USAGE);
    return 0;
  }
  const portFlag = flags.port === undefined ? undefined : Number(flags.port);
  if (portFlag !== undefined && (!Number.isInteger(portFlag) || portFlag < 0 || portFlag > 65535)) {
    console.error(`--port must be a port number (0-65535), got "${flags.port}"`);
    return 2;
  }

  try {
    const config = loadConfig();
    const server = await startCallServer({
      port: portFlag ?? config.port ?? DEFAULT_PORT,
      usePublic: flags.public ?? config.voice.public,
      toolsPath: flags.tools,
      config,
      // Logs, the start-up line included, are JSON lines on stderr.
      logger: { level: config.logLevel, stream: process.stderr },
    });
    // Listening for Ctrl-C before saying we are up, so a signal right after the line is never missed.
    const stopped = new Promise<void>((resolve) => {
      const stop = () => {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        resolve();
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
    });
    const webhook = server.publicUrl ? `${server.publicUrl.replace(/\/$/, "")}/` : `${server.url}/`;
    const toolCount = server.toolNames.filter((name) => name !== "end_call").length;
    const tools = server.toolsFile ? `, ${toolCount} tool${toolCount === 1 ? "" : "s"} from ${server.toolsFile}` : "";
    server.log.info(
      server.publicUrl
        ? `Call server running: carrier webhook ${webhook} (local ${server.url}${tools})`
        : `Call server running on ${server.url} (carrier webhook ${webhook}${tools}; --public for a public URL)`,
    );
    await stopped;
    await server.close();
    return 0;
  } catch (error) {
    const known = [ConfigError, CallServerError, TunnelError, ToolsFileError];
    if (known.some((kind) => error instanceof kind)) {
      console.error((error as Error).message);
    } else {
      console.error(`The call server could not start: ${error instanceof Error ? error.message : String(error)}`);
    }
    return 1;
  }
}
