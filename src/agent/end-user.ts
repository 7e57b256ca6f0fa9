/**
 * The end-user identifier sent with every LLM request of a run (Anthropic's metadata.user_id, OpenAI's
 * safety_identifier), as the providers ask: opaque, so a hash of the subject id, never the id itself.
 */
import { sha256Hex } from "../domain/sha256";

const PREFIX = "unified-memory:subject:";

export async function endUserIdOf(subjectKey: string): Promise<string> {
  return `sha256-${(await sha256Hex(PREFIX + subjectKey)).slice(0, 40)}`;
}
