/** The caller's people and the workspace's people corrections (app/people.ts). */
import {
  correctPeople,
  getPerson,
  listCorrections,
  listPeople,
  listSuggestions,
  withdrawCorrection,
} from "../../app/people";
import * as op from "../../contract/people-operations";
import { route } from "../operation-routes";
import { validBody } from "../validation";

export const peopleRoutes = [
  route(op.listPeople, async (c, { query }) =>
    c.json(await listPeople(c.get("services"), c.get("caller"), query)),
  ),

  route(op.peopleSuggestions, async (c) => c.json(await listSuggestions(c.get("services"), c.get("caller")))),

  route(op.listPeopleCorrections, async (c) =>
    c.json(await listCorrections(c.get("services"), c.get("caller"))),
  ),

  route(op.getPerson, async (c, { params }) =>
    c.json(await getPerson(c.get("services"), c.get("caller"), params.id)),
  ),

  route(op.mergePeople, async (c, { body }) => {
    const input = validBody(op.mergePeople.body.schema, body, { key: "issues" });
    return c.json(await correctPeople(c.get("services"), c.get("caller"), "merge", input), 201);
  }),

  route(op.splitPerson, async (c, { body }) => {
    const { identifier } = validBody(op.splitPerson.body.schema, body, { key: "issues" });
    return c.json(await correctPeople(c.get("services"), c.get("caller"), "split", { a: identifier }), 201);
  }),

  route(op.distinctPeople, async (c, { body }) => {
    const input = validBody(op.distinctPeople.body.schema, body, { key: "issues" });
    return c.json(await correctPeople(c.get("services"), c.get("caller"), "distinct", input), 201);
  }),

  route(op.withdrawPeopleCorrection, async (c, { params }) =>
    c.json(await withdrawCorrection(c.get("services"), c.get("caller"), params.id)),
  ),
];
