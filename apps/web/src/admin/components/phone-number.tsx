import { formatPhone } from "../phone.ts";

/** A phone number, grouped, its digits left to right inside Arabic text too. */
export function PhoneNumber({ phone }: { phone: string }) {
  return (
    <bdi dir="ltr" className="ltr">
      {formatPhone(phone)}
    </bdi>
  );
}
