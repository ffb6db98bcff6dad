// The openai SDK splits a stream into events by copying the rest of its buffer after every event: quadratic in the
// size of one network read. A fast server (vLLM, a local model) delivers 64 KiB reads holding hundreds of events, and
// that copying becomes most of the relay's cost. Handing the SDK the same bytes in small views (no copy) keeps its
// work linear; the SDK still does all the parsing. 1 KiB (about seven chat-completion chunks) measured best here:
// smaller pieces cost more per piece, larger ones bring the copying back.
const PIECE_BYTES = 1024;

class PieceStream extends TransformStream<Uint8Array, Uint8Array> {
  constructor() {
    super({
      transform(chunk, controller) {
        if (chunk.length <= PIECE_BYTES) {
          controller.enqueue(chunk);
          return;
        }
        for (let start = 0; start < chunk.length; start += PIECE_BYTES) {
          controller.enqueue(chunk.subarray(start, start + PIECE_BYTES));
        }
      },
    });
  }
}

/** `fetch` for the SDK: event streams come back in pieces of at most 1 KiB, everything else untouched. */
export const fetchInPieces = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const response = await fetch(input, init);
  if (!response.body || !response.headers.get("content-type")?.startsWith("text/event-stream")) return response;
  return new Response(response.body.pipeThrough(new PieceStream()), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
};
