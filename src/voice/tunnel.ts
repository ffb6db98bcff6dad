// Public mode: an ngrok tunnel to the local port, so the carrier can reach the webhook and the media stream.
import ngrok from "@ngrok/ngrok";

export interface Tunnel {
  url: string;
  close(): Promise<void>;
}

export class TunnelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TunnelError";
  }
}

export async function openTunnel(localAddress: string, authToken: string, timeoutMs = 15_000): Promise<Tunnel> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from ngrok within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  const forwarding = ngrok.forward({ addr: localAddress, authtoken: authToken });
  // A tunnel that opens after we gave up on it is closed rather than left running.
  timeout.catch(() => forwarding.then((late) => late.close()).catch(() => {}));
  try {
    const listener = await Promise.race([forwarding, timeout]);
    const url = listener.url();
    if (!url) throw new Error("ngrok gave no public URL");
    return { url, close: () => listener.close() };
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).replaceAll(authToken, "***");
    throw new TunnelError(
      `could not open the public tunnel (ngrok): ${reason}. Check TUNNEL_AUTH_TOKEN and the network.`,
    );
  } finally {
    clearTimeout(timer);
  }
}
