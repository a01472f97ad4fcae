import type { ButtonHTMLAttributes } from "react";
import { Spinner } from "./spinner.tsx";

/** A submit button that shows a spinner and refuses clicks while busy (spec section 2). */
export function SubmitButton({
  busy,
  children,
  className,
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & { busy?: boolean }) {
  return (
    <button
      type="submit"
      className={`button button--primary ${className ?? ""}`}
      disabled={busy || rest.disabled}
      aria-busy={busy}
      {...rest}
    >
      {busy ? <Spinner size={22} /> : children}
    </button>
  );
}
