/**
 * ModelStandIn: what the model stand-ins (anthropic.ts, openai.ts) share beyond StandIn: their
 * scripted replies (reply() in process, POST /_models/script over HTTP), the log of model calls the
 * sandbox page's model viewer lists, and which models they serve.
 */
import { StandIn } from "../standin.ts";
import { ModelCallLog } from "./model_calls.ts";
import { type ModelReply, ReplyQueue } from "./model_script.ts";

export abstract class ModelStandIn<R extends ModelReply = ModelReply> extends StandIn {
  /** Scripted replies, given to the next requests in order (one naming a model: to that model's). */
  readonly script = new ReplyQueue<R>();
  /** The model calls answered, for the sandbox page's model viewer. */
  readonly calls = new ModelCallLog();

  /** Whether the stand-in answers requests for this model (scripts for others would never be used). */
  abstract servesModel(model: string): boolean;

  /** Queues replies (a string is a text reply). */
  reply(...replies: (string | R)[]): this {
    this.script.push(...replies);
    return this;
  }

  get pendingReplies(): number {
    return this.script.length;
  }

  override reset(): void {
    super.reset();
    this.script.clear();
    this.calls.clear();
  }
}
