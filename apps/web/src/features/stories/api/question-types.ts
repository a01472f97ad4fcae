import type { Transcript } from "@hikaya/contracts";

/** A story's questions and their answers as the token API sends them (spec section 3). */
export interface Question {
  _id: string;
  url: string;
  /** What the question's video says per language (issue 39); absent from servers older than it. */
  transcript?: Transcript;
}

export interface Answer {
  _id: string;
  question: string;
  audio: string;
  character: { nameOfFamilyMember: string; nameOfFamilyMemberAr?: string | null; thumbnail?: string | null };
  /** What the voice says per language (issue 39); absent from servers older than it. */
  transcript?: Transcript;
}
