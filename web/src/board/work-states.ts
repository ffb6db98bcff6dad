// What each card says of its issue's work: its agents' newest tasks that are open or failed, one request for the
// whole board (tasks?latest=true), asked again as tasks, approvals, questions and runtimes change.
import { getAll } from "../api.ts";
import { type Task, type TaskStatus, taskState } from "../api-types.ts";
import { useCoalesced, useWorkspaceEvents } from "../live.ts";
import { useResource } from "../use-resource.ts";

/** When two agents work one issue, the card says what most needs a person. */
const URGENCY: Record<TaskStatus, number> = {
  waiting_input: 4,
  waiting_approval: 4,
  failed: 3,
  running: 2,
  queued: 1,
  succeeded: 0,
  cancelled: 0,
};

export interface WorkState {
  status: TaskStatus;
  text: string;
}

export function useWorkStates(workspaceId: string): Map<string, WorkState> | undefined {
  const tasks = useResource(async () => {
    const list = await getAll<Task>(
      `workspaces/${workspaceId}/tasks?latest=true&status=queued,running,waiting_approval,waiting_input,failed`,
    );
    const states = new Map<string, WorkState>();
    for (const task of list) {
      const text =
        task.waiting_for === "runtime"
          ? "Waiting for a runtime"
          : task.waiting_for === "budget"
            ? "Waiting for budget"
            : taskState(task.status);
      const held = states.get(task.issue_id);
      if (text && (!held || URGENCY[task.status] > URGENCY[held.status]))
        states.set(task.issue_id, { status: task.status, text });
    }
    return states;
  }, [workspaceId]);
  const reload = useCoalesced(tasks.reload, 100);
  useWorkspaceEvents(workspaceId, (event) => {
    // A runtime coming or going, or a budget reached, changes whether a queued task waits for one.
    if (event.type === "stream.open" || /^(task|approval|question|run|runtime|budget)\./.test(event.type)) reload();
  });
  return tasks.data;
}
