// `?`: the keyboard shortcuts, listed.
import { Dialog } from "../components.tsx";

const SHORTCUTS: [string, string][] = [
  ["Ctrl K or ⌘ K", "Open the command palette: jump to an issue, a page or an agent"],
  ["c", "New issue (on the board)"],
  ["/", "Search the board"],
  ["j / k", "Next / previous card"],
  ["Enter", "Open the card in focus"],
  ["Move (on a card)", "Move the card to another column: arrows to choose, Enter to move"],
  ["Esc", "Close a dialog or menu"],
  ["?", "These shortcuts"],
];

export function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose}>
      <dl className="shortcuts">
        {SHORTCUTS.map(([keys, what]) => (
          <div key={keys}>
            <dt>
              <kbd>{keys}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
    </Dialog>
  );
}
