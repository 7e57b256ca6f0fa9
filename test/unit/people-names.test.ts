import { describe, expect, it } from "vitest";
import { handleForm, handlesOfName, parseName } from "../../src/domain/people/names";
import { areNicknames, canonicalNames } from "../../src/domain/people/nicknames";
import { organisationOf } from "../../src/domain/people/scoring";

describe("names made comparable", () => {
  it("folds case and accents, drops honorifics, and turns 'Surname, Given' round", () => {
    expect(parseName("Dr. Zoë  O'Brien")).toEqual({
      tokens: ["zoe", "obrien"],
      first: "zoe",
      last: "obrien",
      full: "zoe obrien",
    });
    expect(parseName("Lovelace, Ada")?.full).toBe("ada lovelace");
    expect(parseName("Mr. John Richter, James Doe Sr.")).toMatchObject({
      first: "john",
      last: "doe",
      suffix: "sr",
    });
    expect(parseName("John Doe III")).toMatchObject({ full: "john doe", suffix: "iii" });
    expect(parseName("Ada")).toMatchObject({ first: "ada", last: "" });
    expect(parseName("12345 !!")).toBeNull();
  });

  it("spells a name as the handles people make of it", () => {
    expect(handlesOfName(parseName("Ada Lovelace")!)).toEqual([
      "adalovelace",
      "alovelace",
      "adal",
      "lovelaceada",
      "lovelacea",
    ]);
    expect(handlesOfName(parseName("Ada")!)).toEqual([]);
    expect(handleForm("Ada.Lovelace+news")).toBe("adalovelace");
  });

  it("knows nicknames both ways, never a name as its own nickname", () => {
    expect(areNicknames("bob", "robert")).toBe(true);
    expect(areNicknames("robert", "bob")).toBe(true);
    expect(areNicknames("kate", "katherine")).toBe(true);
    expect(areNicknames("bob", "bob")).toBe(false);
    expect(areNicknames("bob", "william")).toBe(false);
    expect(canonicalNames("bob")).toEqual(["bob", "robert"]);
  });

  it("tells an address's organisation, leaving free-mail providers out", () => {
    expect(organisationOf("ada@acme.com")).toBe("acme");
    expect(organisationOf("ada@eng.acme.com")).toBe("acme");
    expect(organisationOf("ada@acme.co.uk")).toBe("acme");
    expect(organisationOf("ada@gmail.com")).toBeNull();
    expect(organisationOf("1234+ada@users.noreply.github.com")).toBeNull();
  });
});
