// Voice calls: the platform API has no call log yet, so this page says so instead of showing an empty list.
export function Calls() {
  return (
    <main className="page">
      <h1>Calls</h1>
      <div className="empty card">
        <p>No call log is available from this server.</p>
        <p className="muted">
          Calls are handled by <code>agent-platform call</code>; the platform API does not offer their transcripts yet,
          so they cannot be listed here.
        </p>
      </div>
    </main>
  );
}
