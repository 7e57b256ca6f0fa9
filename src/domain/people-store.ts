/**
 * The people store port: what the items a viewer may see say about people (their identifier sightings and
 * hard links), a workspace's corrections, and the addresses members are tied to. Postgres in
 * db/pg-people-store.ts; the persons themselves are computed from this by domain/people resolvePeople.
 */
import type { Correction, HardLink, Sighting } from "./people/model";

/** Sightings a viewer's evidence holds at most (their newest items first); past it the oldest are left out. */
export const MAX_EVIDENCE_SIGHTINGS = 50_000;

/** A member's correction as stored: who asserted it and when, and when it was withdrawn. */
export interface StoredCorrection extends Correction {
  /** The author's subject key. */
  authorKey: string;
  createdAt: Date;
  withdrawnAt: Date | null;
}

export interface PeopleEvidence {
  /** Sightings of identifiers in the items the viewer may see, newest items first, at most the store's bound. */
  sightings: Sighting[];
  hardLinks: HardLink[];
  /** The workspace's active corrections, oldest first (not yet restricted to what the viewer sees). */
  corrections: StoredCorrection[];
  /** The address an admin tied the viewer to (PUT /members/:user), when the viewer is a user. */
  memberEmail: string | null;
  /** True when the viewer's items name more than the bound: the oldest sightings were left out. */
  truncated: boolean;
  /** fingerprint(viewerKey) read with this evidence (absent when the store cannot tell). */
  fingerprint?: string;
}

export interface PeopleStore {
  /** Everything resolving `viewerKey`'s people needs, in one round trip; only items the viewer may see. */
  evidence(viewerKey: string): Promise<PeopleEvidence>;
  /**
   * A cheap digest of everything evidence(viewerKey) depends on: which items the viewer may see and each
   * one's version, the workspace's active corrections, and the viewer's member address. Equal digests mean
   * equal evidence, so a view resolved from it may be served again.
   */
  fingerprint(viewerKey: string): Promise<string>;
  /** The workspace's corrections, newest first (withdrawn ones too when asked). */
  corrections(
    workspaceId: string,
    options: { withdrawn: boolean; limit: number },
  ): Promise<StoredCorrection[]>;
  addCorrection(workspaceId: string, correction: Omit<StoredCorrection, "withdrawnAt">): Promise<void>;
  /** Marks the correction withdrawn; null when the workspace has no such correction (or it was withdrawn). */
  withdrawCorrection(workspaceId: string, id: string, at: Date): Promise<StoredCorrection | null>;
  /**
   * Derives the people of up to `limit` items stored before people evidence existed (marked pending) and
   * clears their mark, in one transaction; an item that has people rows already (written since) only loses
   * the mark. `scanned` below `limit` means none are left.
   */
  backfill(limit: number): Promise<{ scanned: number; derived: number }>;
  /** Ties a member to an address (null unties); false when the member does not exist. */
  setMemberEmail(memberKey: string, email: string | null): Promise<boolean>;
}
