/**
 * Common English given-name variants, each group one canonical name first. Small on purpose: a nickname
 * only adds weight when the surnames agree too (link-config.ts).
 */
const GROUPS: readonly (readonly string[])[] = [
  ["robert", "bob", "bobby", "rob", "robbie", "bert"],
  ["william", "bill", "billy", "will", "willy", "liam"],
  ["richard", "rick", "ricky", "dick", "rich", "richie"],
  ["james", "jim", "jimmy", "jamie"],
  ["john", "jack", "johnny", "jon"],
  ["jonathan", "jon", "jonny"],
  ["michael", "mike", "mikey", "mick"],
  ["thomas", "tom", "tommy"],
  ["charles", "charlie", "chuck", "chas"],
  ["joseph", "joe", "joey"],
  ["daniel", "dan", "danny"],
  ["david", "dave", "davy"],
  ["edward", "ed", "eddie", "ted", "ned"],
  ["anthony", "tony"],
  ["andrew", "andy", "drew"],
  ["alexander", "alex", "sasha", "xander"],
  ["alexandra", "alex", "sasha", "lexi"],
  ["benjamin", "ben", "benny"],
  ["christopher", "chris", "kit"],
  ["christine", "chris", "chrissy", "tina"],
  ["matthew", "matt"],
  ["nicholas", "nick", "nicky"],
  ["patrick", "pat", "paddy"],
  ["patricia", "pat", "patty", "trish"],
  ["peter", "pete"],
  ["samuel", "sam", "sammy"],
  ["samantha", "sam", "sammy"],
  ["stephen", "steve", "stevie"],
  ["steven", "steve", "stevie"],
  ["timothy", "tim", "timmy"],
  ["gregory", "greg"],
  ["kenneth", "ken", "kenny"],
  ["lawrence", "larry"],
  ["leonard", "leo", "len", "lenny"],
  ["margaret", "maggie", "meg", "peggy", "marge"],
  ["elizabeth", "liz", "lizzie", "beth", "betty", "eliza", "libby"],
  ["katherine", "kate", "katie", "kathy", "kat"],
  ["catherine", "cathy", "kate", "cat"],
  ["jennifer", "jen", "jenny"],
  ["rebecca", "becky", "becca"],
  ["susan", "sue", "susie"],
  ["deborah", "deb", "debbie"],
  ["victoria", "vicky", "tori"],
  ["jessica", "jess", "jessie"],
  ["abigail", "abby"],
  ["augusta", "ada", "gussie"],
  ["frederick", "fred", "freddie"],
  ["henry", "harry", "hank"],
  ["gerald", "gerry", "jerry"],
  ["raymond", "ray"],
  ["ronald", "ron", "ronnie"],
  ["donald", "don", "donnie"],
  ["douglas", "doug"],
  ["vincent", "vince", "vinny"],
  ["zachary", "zach", "zack"],
  ["nathaniel", "nate", "nat"],
  ["nathan", "nate"],
  ["jacob", "jake"],
  ["joshua", "josh"],
  ["theodore", "theo", "ted", "teddy"],
  ["grace", "gracie"],
  ["susanna", "susie", "sue"],
  ["eleanor", "ellie", "nell", "nora"],
  ["dorothy", "dot", "dottie"],
  ["evelyn", "evie", "eve"],
  ["amanda", "mandy"],
  ["pamela", "pam"],
  ["barbara", "barb", "babs"],
  ["linus", "lin"],
];

const BY_NAME = new Map<string, Set<string>>();
for (const group of GROUPS) {
  for (const name of group) {
    const set = BY_NAME.get(name) ?? new Set<string>();
    for (const other of group) set.add(other);
    BY_NAME.set(name, set);
  }
}

/** Whether two lower-case given names are variants of one another (never true of a name and itself). */
export function areNicknames(a: string, b: string): boolean {
  return a !== b && (BY_NAME.get(a)?.has(b) ?? false);
}

/** The canonical names a given name may stand for (itself included), for blocking. */
export function canonicalNames(name: string): string[] {
  return CANONS.get(name) ?? [name];
}

const CANONS = new Map<string, string[]>();
for (const group of GROUPS) {
  for (const name of group) {
    const canon = CANONS.get(name) ?? [name];
    if (!canon.includes(group[0]!)) canon.push(group[0]!);
    CANONS.set(name, canon);
  }
}
