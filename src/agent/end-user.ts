/**
 * The end-user identifier sent with every LLM request of a run (Anthropic's metadata.user_id, OpenAI's
 * safety_identifier), as the providers ask: opaque, so a hash of the subject id, never the id itself.
 */
const PREFIX = "unified-memory:subject:";

export async function endUserIdOf(subjectKey: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(PREFIX + subjectKey));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `sha256-${hex.slice(0, 40)}`;
}
