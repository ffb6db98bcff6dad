// Child process of bench/agui.ts: the test model server, answering every request with WORDS one-word chunks.
import { TestModelServer } from "../test/helpers/model-server.ts";

const words = Number(process.argv[2] ?? 2000);
const model = await TestModelServer.start();
model.setDefault({ words });
// The benchmark never looks at what was asked: keep memory flat.
setInterval(() => model.reset(), 1000).unref();
console.log(`MODEL_URL=${model.url}`);
