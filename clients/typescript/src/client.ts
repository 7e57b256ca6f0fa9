/** The client: `new UnifiedMemory({ baseUrl, token })`, one property per part of the API. */
import { AuditApi, UsageApi } from "./audit.js";
import { ImportsApi } from "./imports.js";
import { ItemsApi } from "./items.js";
import { MemoryApi } from "./memory.js";
import { PeopleApi } from "./people.js";
import { type ClientOptions, Transport } from "./transport.js";
import { WebhooksApi } from "./webhooks.js";
import { MeApi, MembersApi, TeamsApi } from "./workspace.js";

export class UnifiedMemory {
  /** The caller's own memory. */
  readonly memory: MemoryApi;
  readonly items: ItemsApi;
  /** Imports through the service: upload an export file, then follow its import. */
  readonly imports: ImportsApi;
  /** Teams, and a team's memory: `teams.memory("payments").get()`. */
  readonly teams: TeamsApi;
  readonly members: MembersApi;
  /** The caller's people and the workspace's people corrections. */
  readonly people: PeopleApi;
  readonly me: MeApi;
  /** The workspace's audit trail (admin scope); the caller's own is `me.audit()`. */
  readonly audit: AuditApi;
  /** The workspace's usage ledger (admin scope); the caller's own is `me.usage()`. */
  readonly usage: UsageApi;
  /** The workspace's webhook endpoints and their deliveries (admin scope). */
  readonly webhooks: WebhooksApi;

  constructor(options: ClientOptions) {
    const transport = new Transport(options);
    this.memory = new MemoryApi(transport, null);
    this.items = new ItemsApi(transport);
    this.imports = new ImportsApi(transport);
    this.teams = new TeamsApi(transport);
    this.members = new MembersApi(transport);
    this.people = new PeopleApi(transport);
    this.me = new MeApi(transport);
    this.audit = new AuditApi(transport);
    this.usage = new UsageApi(transport);
    this.webhooks = new WebhooksApi(transport);
  }
}
