/**
 * One request-body cap for every route that takes a body: Hono's bodyLimit (counts bytes as they
 * stream, so an oversized body is refused before it is buffered), answering 413
 * `payload_too_large` in the one error shape.
 */
import { bodyLimit } from "hono/body-limit";
import { HttpError } from "./errors.ts";

/** Middleware refusing a body over `maxBytes` with 413; `what` names it in the message. */
export function limitBody(maxBytes: number, what = "request body") {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new HttpError(413, "payload_too_large", `The ${what} exceeds ${maxBytes} bytes`);
    },
  });
}
