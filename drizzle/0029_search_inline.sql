-- The tsvector stays in the item's row (STORAGE MAIN) instead of going out of line: a tsvector over about
-- 2 kB (a body of a few kB) was moved to the TOAST table, and every search that scores or rechecks an item
-- reads its tsvector, each time through the TOAST index and its chunks. MAIN keeps it in the row unless the
-- row exceeds a page (it is compressed first, and moved out only past that); the body is moved out before it.
-- At 100,000 items, a quoted phrase of two common words rechecks 4,618 items: 27,790 buffers and 40 ms out of
-- line, 10,279 buffers and 26 ms in the row. Applies to rows written from now on; `VACUUM FULL items`
-- (which locks the table while it rewrites it) moves the rows written before.
ALTER TABLE "items" ALTER COLUMN "search" SET STORAGE MAIN;
