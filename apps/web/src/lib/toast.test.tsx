// @vitest-environment jsdom
import { TOAST_CLOSE_MS } from "@hikaya/contracts";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Toaster, toast } from "./toast.tsx";

describe("toasts", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    act(() => vi.runAllTimers()); // the store outlives a render: let every toast close before the next test
    cleanup();
    vi.useRealTimers();
  });

  it("shows a message, newest first, and closes it after the spec's time", () => {
    render(<Toaster closeLabel="Close" />);
    act(() => {
      toast.success("Saved");
      toast.error("Phone number is invalid");
    });
    const shown = screen.getAllByText(/Saved|Phone number/).map((el) => el.textContent);
    expect(shown).toEqual(["Phone number is invalid", "Saved"]);
    expect(screen.getByRole("alert").textContent).toContain("Phone number is invalid");
    expect(screen.getByRole("status").textContent).toContain("Saved");
    act(() => vi.advanceTimersByTime(TOAST_CLOSE_MS - 1));
    expect(screen.queryByText("Saved")).not.toBeNull();
    act(() => vi.advanceTimersByTime(1));
    expect(screen.queryByText("Saved")).toBeNull();
    expect(screen.queryByText("Phone number is invalid")).toBeNull();
  });

  it("shows one toast per id however often it is raised, and keeps at most three", () => {
    render(<Toaster closeLabel="Close" />);
    act(() => {
      toast.error("Username is taken", { toastId: "register-username" });
      toast.error("Username is taken", { toastId: "register-username" });
    });
    expect(screen.getAllByText("Username is taken")).toHaveLength(1);
    act(() => {
      for (const n of [1, 2, 3, 4]) toast.info(`note ${n}`);
    });
    expect(screen.getAllByRole("status").map((el) => el.firstChild?.textContent)).toEqual(["note 4", "note 3", "note 2"]);
  });

  it("closes on the close button", () => {
    render(<Toaster closeLabel="إغلاق" />);
    act(() => {
      toast.info("Copied");
    });
    fireEvent.click(screen.getByRole("button", { name: "إغلاق" }));
    expect(screen.queryByText("Copied")).toBeNull();
  });
});
