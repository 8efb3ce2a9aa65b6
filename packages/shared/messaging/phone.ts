/**
 * Phone addresses: E.164 numbers (`+` then up to 15 digits, no leading zero) and Twilio's
 * channel-prefixed form (`whatsapp:+3069...`) on the wire.
 */
import { DomainError } from "../errors.ts";

export type ChannelType = "sms" | "whatsapp";

const E164 = /^\+[1-9]\d{1,14}$/;

export function isE164(value: string): boolean {
  return E164.test(value);
}

/** The number itself, or a 400 naming the bad value. */
export function requireE164(value: string, field = "to"): string {
  if (!isE164(value)) {
    throw DomainError.invalid(
      `Invalid phone number for ${field} (E.164 expected, e.g. +14155550123): ${value}`,
    );
  }
  return value;
}

/** The address Twilio expects for a channel: WhatsApp numbers carry the `whatsapp:` prefix. */
export function toProviderAddress(channel: ChannelType, number: string): string {
  return channel === "whatsapp" ? `whatsapp:${number}` : number;
}

/** A provider address split into its channel and E.164 number. */
export function fromProviderAddress(address: string): { channel: ChannelType; number: string } {
  return address.startsWith("whatsapp:")
    ? { channel: "whatsapp", number: address.slice("whatsapp:".length) }
    : { channel: "sms", number: address };
}
