/**
 * The weights and thresholds of scored links, as data. A candidate pair's score is the sum of the weights
 * of the features it shows (Fellegi-Sunter: each weight is log2 of how much likelier the feature is among
 * pairs of one person than among pairs of two); at or above `autoThreshold` the link is accepted, at or
 * above `suggestThreshold` it waits as a suggestion, below it nothing. Tuned on test/fixtures/people
 * (`npm run bench:people`); docs/people.md explains each feature.
 */
export interface LinkConfig {
  autoThreshold: number;
  suggestThreshold: number;
  weights: {
    /** The same normalised full name (two or more tokens). */
    fullName: number;
    /** The same single-token name (a first name or a handle alone). */
    singleName: number;
    /** Same surname, first names equal through the nickname table (Bob / Robert). */
    nickname: number;
    /** Same surname, one first name an initial of the other (A. Lovelace / Ada Lovelace). */
    initial: number;
    /** Only a first name (or nickname) agrees, the other side having a surname. */
    firstNameOnly: number;
    /** An email's local part or a login spells the other side's full name (ada.lovelace, lovelace_ada). */
    localPartName: number;
    /** It spells the name with an initial (alovelace, adal). */
    localPartInitial: number;
    /** An email's local part or a login equals the other's local part or login (ada / ada). */
    sameHandle: number;
    /**
     * Both are at the same organisation: addresses at one domain (not a free-mail provider), or a chat
     * account whose workspace's members have addresses at that domain.
     */
    sameOrganisation: number;
    /** Both are at organisations and share none. */
    otherOrganisation: number;
    /** Surnames present on both sides and different, or given names different under one surname. */
    surnameDiffers: number;
    /** Generational suffixes present on both sides and different (Sr. / III). */
    suffixDiffers: number;
    /**
     * A name feature and a handle feature that agree are largely one piece of evidence (a local part is
     * usually made from the name): the stronger counts, plus this much.
     */
    corroboration: number;
    /** The two share people they appear with (per shared co-participant, up to `coOccurrenceCap`). */
    coOccurrence: number;
    coOccurrenceCap: number;
    /** Two identifiers of the same kind (two mailboxes, two logins) belong to one person less often. */
    sameKind: number;
    /**
     * Activity, the span from a group's first sighting to its last, for two groups each of one kind, the
     * same: one began as the other ended (a changed address), within `activityToleranceDays` of overlap.
     */
    oneAfterTheOther: number;
    /** Of one kind, the same, and side by side: one span inside the other, or overlapping for longer. */
    sideBySide: number;
    /** No kind in common and active in one period (apart by at most `activityToleranceDays`). */
    samePeriod: number;
    /** No kind in common and active in periods further apart than that. */
    apart: number;
  };
  /**
   * Days of overlap two same-kind spans may have and still be one after the other (an old address keeps
   * receiving mail for a while), and days two spans may lie apart and still be one period (an export taken
   * once beside mail that goes on).
   */
  activityToleranceDays: number;
  /** Identifiers per blocking key past which the key is too common to compare on (kept near-linear). */
  maxBlockSize: number;
}

export const DEFAULT_LINK_CONFIG: LinkConfig = {
  autoThreshold: 10,
  suggestThreshold: 5,
  weights: {
    fullName: 9,
    singleName: 3,
    nickname: 7,
    initial: 6,
    firstNameOnly: 2,
    localPartName: 7,
    localPartInitial: 5,
    sameHandle: 5,
    sameOrganisation: 3,
    otherOrganisation: -6,
    surnameDiffers: -10,
    suffixDiffers: -12,
    corroboration: 1,
    coOccurrence: 1,
    coOccurrenceCap: 3,
    sameKind: -2,
    oneAfterTheOther: 1,
    sideBySide: -2,
    samePeriod: 0,
    apart: -1,
  },
  activityToleranceDays: 90,
  maxBlockSize: 100,
};
