import { useMutation, useQueryClient } from "@tanstack/react-query";
import { tokenApi } from "../../../lib/api-client.ts";
import { meQuery } from "../../../lib/me.ts";

export interface ProfileForm {
  name: string;
  city: string;
  gender: string;
  ageGroup: string;
}

/** POST /api/profile/update (multipart name, city, gender, ageGroup; spec section 7). */
export function updateProfile(values: ProfileForm) {
  const form = new FormData();
  for (const [k, v] of Object.entries(values)) if (v) form.set(k, v);
  return tokenApi<unknown>("/profile/update", form);
}

export function useUpdateProfile() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: updateProfile,
    onSuccess: () => client.invalidateQueries({ queryKey: meQuery.queryKey }),
  });
}
