/** The caller's workspace: members and teams (changes need the admin scope), a team's memory, and the caller. */
import { auditPages, type MyAuditOptions, type UsageOptions, usage } from "./audit.js";
import { MemoryApi } from "./memory.js";
import { request } from "./operations.js";
import type { Paginator } from "./pages.js";
import type { Transport } from "./transport.js";
import type {
  AuditEvent,
  AuditPage,
  IngestAddress,
  Member,
  MembersList,
  Team,
  TeamInput,
  TeamsList,
  Usage,
} from "./types.js";

export class MembersApi {
  constructor(private readonly transport: Transport) {}

  list(): Promise<MembersList> {
    return this.transport.json(request("listMembers"));
  }

  /** Adds a user to the workspace, or adds a removed one back; `email` ties them to that address. */
  add(user: string, options: { email?: string | null } = {}): Promise<Member> {
    const body = options.email === undefined ? undefined : { email: options.email };
    return this.transport.json(request("addMember", { params: { user }, ...(body ? { body } : {}) }));
  }

  /** Ends the member's access at once (erases nothing of theirs). */
  async remove(user: string): Promise<void> {
    await this.transport.send(request("removeMember", { params: { user } }));
  }
}

export class TeamsApi {
  constructor(private readonly transport: Transport) {}

  list(): Promise<TeamsList> {
    return this.transport.json(request("listTeams"));
  }

  get(team: string): Promise<Team> {
    return this.transport.json(request("getTeam", { params: { team } }));
  }

  /** Creates the team or replaces its name and members. */
  put(team: string, input: TeamInput): Promise<Team> {
    return this.transport.json(request("putTeam", { params: { team }, body: input }));
  }

  async delete(team: string): Promise<void> {
    await this.transport.send(request("deleteTeam", { params: { team } }));
  }

  /** The team's memory: the same methods as `client.memory` (members only; anyone else gets not_found). */
  memory(team: string): MemoryApi {
    return new MemoryApi(this.transport, team);
  }
}

export class MeApi {
  constructor(private readonly transport: Transport) {}

  /** Erases everything of the caller: items, memory, versions, runs. */
  async erase(): Promise<void> {
    await this.transport.send(request("eraseMe"));
  }

  /** The caller's private inbound-email address (the same one until revoked). */
  ingestAddress(): Promise<IngestAddress> {
    return this.transport.json(request("issueIngestAddress"));
  }

  async revokeIngestAddress(): Promise<void> {
    await this.transport.send(request("revokeIngestAddress"));
  }

  /** Who read the caller's memory and items, and when: events newest first, across pages. */
  audit(options: MyAuditOptions = {}): Paginator<AuditEvent, AuditPage> {
    return auditPages(this.transport, "myAudit", options);
  }

  /** What the caller's memory cost per day (runs, LLM calls, tokens per model, reads, estimated USD). */
  usage(options: UsageOptions = {}): Promise<Usage> {
    return usage<Usage>(this.transport, "myUsage", options);
  }
}
