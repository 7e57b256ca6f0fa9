/** Column helpers the schema files share. */
import { timestamp } from "drizzle-orm/pg-core";

/** A timestamptz column read as a Date. */
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
