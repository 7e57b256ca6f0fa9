/**
 * The webhook receivers of the global setup (test/support/node/webhook-receiver.ts), for tests in workerd:
 * a receiver per name, told how to answer, and what it got.
 */
import { inject } from "vitest";
import type { ReceivedDelivery, ReceiverBehaviour } from "./node/webhook-receiver";

declare module "vitest" {
  export interface ProvidedContext {
    webhookReceiverUrl: string;
  }
}

/** A receiver of its own per test, and what it got. */
export function receiver(name: string) {
  const receiverUrl = inject("webhookReceiverUrl");
  const control = `${receiverUrl}/__control/${name}`;
  return {
    url: `${receiverUrl}/hooks/${name}`,
    answer: (behaviour: ReceiverBehaviour) =>
      fetch(control, { method: "PUT", body: JSON.stringify(behaviour) }).then((r) => r.arrayBuffer()),
    received: async () => (await (await fetch(control)).json()) as ReceivedDelivery[],
  };
}
