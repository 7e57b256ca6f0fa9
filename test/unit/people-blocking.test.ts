/**
 * Blocking: which keys a group is compared on. A given name of a full name ("Ada" of "Ada Lovelace") is a
 * key only towards groups that hold it otherwise (a one-word name, "Ada L.", a login): two full names that
 * share nothing but a given name differ in surname and are never compared on it.
 */
import { describe, expect, it } from "vitest";
import { profileOf } from "../../src/domain/people/scoring";

const profile = (names: string[], kind: "email" | "github" | "speaker" = "email", value = "x@acme.com") =>
  profileOf("r", [{ key: `${kind}:${value}`, kind, value, names }], new Set())!;

describe("blocking keys", () => {
  it("holds a full name's given names apart from its surname", () => {
    const ada = profile(["Ada Lovelace"]);
    expect(ada.blockingKeys).toContain("t:ada");
    expect(ada.blockingKeys).toContain("t:lovelace");
    expect(ada.givenOnlyKeys.has("t:ada")).toBe(true);
    expect(ada.givenOnlyKeys.has("t:lovelace")).toBe(false);
  });

  it("keeps a one-word name, a surname written as an initial and a login comparable on the first name", () => {
    expect(profile(["Ada"]).givenOnlyKeys.size).toBe(0);
    expect(profile(["Ada L."]).givenOnlyKeys.size).toBe(0);
    // "Ada Lovelace" whose login is ada: the login makes t:ada a key of its own.
    const login = profileOf(
      "r",
      [
        { key: "github:ada", kind: "github", value: "ada", names: ["Ada Lovelace"] },
        { key: "email:x@acme.com", kind: "email", value: "x@acme.com", names: [] },
      ],
      new Set(),
    )!;
    expect(login.givenOnlyKeys.has("t:ada")).toBe(false);
  });

  it("a second name whose surname is the first's given name makes it a key of its own", () => {
    expect(profile(["Grace Hopper", "Hopper Grace"]).givenOnlyKeys.size).toBe(0);
  });
});
