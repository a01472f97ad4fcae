// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { initI18n, loadNamespaces, setLanguage } from "../../lib/i18n.ts";
import { AdminField } from "./admin-field.tsx";
import { MoveButtons, RowButton } from "./row-actions.tsx";

beforeAll(async () => {
  await initI18n();
  await loadNamespaces("admin");
  await setLanguage("en");
});
afterEach(cleanup);

// The e2e tests find these by role and label: the names are the contract the shared pieces keep.
describe("the console's shared form and row pieces", () => {
  it("AdminField: the label names the input, which keeps the caller's id and the console's input class", () => {
    render(<AdminField id="join-phone" label="Phone number" className="ltr" type="tel" readOnly value="" />);
    const input = screen.getByLabelText("Phone number");
    expect(input.id).toBe("join-phone");
    expect(input.className).toBe("admin-input ltr");
    expect(input.getAttribute("type")).toBe("tel");
  });

  it("MoveButtons: named after the row, the first row cannot move up nor the last down", () => {
    const moves: number[] = [];
    render(<MoveButtons name="Question 1" first last={false} onMove={(delta) => moves.push(delta)} />);
    const up = screen.getByRole("button", { name: "Move Question 1 up" });
    const down = screen.getByRole("button", { name: "Move Question 1 down" });
    expect((up as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(down);
    expect(moves).toEqual([1]);
  });

  it("MoveButtons: both wait while a move is being saved", () => {
    render(<MoveButtons name="Huda" first={false} last={false} disabled onMove={() => {}} />);
    for (const button of screen.getAllByRole("button")) expect((button as HTMLButtonElement).disabled).toBe(true);
  });

  it("RowButton: shows the action, its name adds the row's", () => {
    let deleted = false;
    render(<RowButton action="Delete" name="Huda" danger onClick={() => (deleted = true)} />);
    const button = screen.getByRole("button", { name: "Delete: Huda" });
    expect(button.textContent).toBe("Delete");
    expect(button.className).toContain("admin-button--danger-outline");
    fireEvent.click(button);
    expect(deleted).toBe(true);
  });
});
