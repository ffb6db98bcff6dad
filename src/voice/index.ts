// The voice-call server (`agent-platform call`): carrier webhook, media-stream bridge, realtime provider client.
export { runCallCommand } from "./call-command.ts";
export { type CallServer, CallServerError, type CallServerOptions, startCallServer } from "./call-server.ts";
