import { formatPhone } from "../phone.ts";

/**
 * A phone number or e-mail put into a sentence (a string, where no element can set its direction): between U+2066
 * (left-to-right isolate) and U+2069 (its end). Otherwise a phone's leading "+", a neutral sign, took the Arabic
 * sentence's direction and sat at the number's right-hand end ("962 7 9123 4567+").
 */
export function ltrIsolate(text: string): string {
  return text ? `\u2066${text}\u2069` : text;
}

/** A phone number, grouped, its digits left to right inside Arabic text too. */
export function PhoneNumber({ phone }: { phone: string }) {
  return (
    <bdi dir="ltr" className="ltr">
      {formatPhone(phone)}
    </bdi>
  );
}
