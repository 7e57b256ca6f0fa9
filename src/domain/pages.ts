/** How many entries one page of any list holds (search, runs, versions): the default and the most. */
export const PAGE_LIMIT = { default: 20, max: 100 } as const;
