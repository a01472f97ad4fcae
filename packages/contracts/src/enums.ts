import { z } from "zod";
import { AGE_GROUPS, GENDERS, INSTRUCTION_LOCATIONS, WATCH_STATUSES } from "./constants.ts";

/** zod schemas of the spec's closed lists, for validation at the edges. */
export const genderSchema = z.enum(GENDERS);
export const ageGroupSchema = z.enum(AGE_GROUPS);
export const watchStatusSchema = z.enum(WATCH_STATUSES);
export const instructionLocationSchema = z.enum(INSTRUCTION_LOCATIONS);
