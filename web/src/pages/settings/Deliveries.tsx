// One webhook's latest deliveries, each with Retry.
import { useState } from "react";
import { api } from "../../api.ts";
import type { Delivery } from "../../api-types.ts";
import { Time } from "../../components/Time.tsx";
import { Empty, ErrorLine, Loaded, Table } from "../../components.tsx";
import { useResource } from "../../use-resource.ts";
import { useWorkspace } from "../../workspace.tsx";

export function Deliveries({ webhookId }: { webhookId: string }) {
  const ws = useWorkspace();
  const base = `workspaces/${ws.id}/webhooks/${webhookId}/deliveries`;
  const deliveries = useResource(() => api.get<Delivery[]>(`${base}?limit=50`), [base]);
  const [error, setError] = useState<unknown>();
  const retry = (delivery: Delivery) => {
    setError(undefined);
    api.post(`${base}/${delivery.id}/retry`).then(deliveries.reload, (failure) => {
      setError(failure);
      deliveries.reload();
    });
  };
  return (
    <Loaded resource={deliveries} what="the deliveries">
      {(list) =>
        list.length === 0 ? (
          <Empty>No deliveries yet.</Empty>
        ) : (
          <div className="delivery-log">
            <ErrorLine error={error} />
            <Table columns={["Event", "When", "Attempt", "Status", "Response"]} actions className="deliveries">
              {list.map((delivery) => (
                <tr key={delivery.id}>
                  <td>
                    #{delivery.event_seq} {delivery.event_type}
                  </td>
                  <td>
                    <Time iso={delivery.created_at} />
                  </td>
                  <td>{delivery.attempt}</td>
                  <td>{delivery.status}</td>
                  <td className="wrap">{delivery.response_status ?? delivery.error ?? ""}</td>
                  <td>
                    <button type="button" className="ghost small" onClick={() => retry(delivery)}>
                      Retry
                    </button>
                  </td>
                </tr>
              ))}
            </Table>
          </div>
        )
      }
    </Loaded>
  );
}
