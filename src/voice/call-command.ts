// `agent-platform call`: runs the call server until Ctrl-C.
import { ConfigError, loadConfig } from "../config.ts";
import { ToolsFileError } from "../tools/custom.ts";
import { END_CALL, TRANSFER_CALL } from "./call-control.ts";
import { CallServerError, startCallServer } from "./call-server.ts";
import { TunnelError } from "./tunnel.ts";

const DEFAULT_PORT = 8090;

export interface CallFlags {
  public?: boolean;
  port?: number;
  tools?: string;
}

/** Runs until SIGINT/SIGTERM; resolves with the process exit code. The flags are read by the CLI (src/cli/). */
export async function runCallCommand(flags: CallFlags): Promise<number> {
  try {
    const config = loadConfig();
    const server = await startCallServer({
      port: flags.port ?? config.port ?? DEFAULT_PORT,
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
    const toolCount = server.toolNames.filter((name) => name !== END_CALL && name !== TRANSFER_CALL).length;
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
