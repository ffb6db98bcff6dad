// The test doubles and fixtures listen on 127.0.0.1 at a port the OS picks.
import type { AddressInfo, Server } from "node:net";

/** Starts `server` listening on a free port of 127.0.0.1 and resolves to that port. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}
