// The board's render as bench/web.ts and bench/board-ab.ts time it, in the page: from the Board view button's click
// to every card in the DOM plus a frame (ms).
import type { Page } from "playwright-core";

declare const document: any;
declare const requestAnimationFrame: any;

export function boardRenderMs(page: Page, cards: number): Promise<number> {
  return page.evaluate(
    (count) =>
      new Promise<number>((resolve) => {
        const started = performance.now();
        [...document.querySelectorAll("button")].find((b: any) => b.textContent === "Board view").click();
        const check = () =>
          document.querySelectorAll(".issue-card").length === count
            ? requestAnimationFrame(() => resolve(performance.now() - started))
            : requestAnimationFrame(check);
        check();
      }),
    cards,
  );
}
