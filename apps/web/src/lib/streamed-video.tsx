import { type Ref, useEffect, useImperativeHandle, useRef, type VideoHTMLAttributes } from "react";
import { useStreamSource } from "./stream-source.ts";

/**
 * A <video> of a stored file that plays its HLS version once the server has one (issue 29: weak connections), else
 * the file itself: the question, instruction and landing videos. `onAttached` runs when a source is set, for a
 * player that starts playing by itself. Without `src` yet (its address is on its way) the element is there, empty. The story player uses `useStreamSource` directly (captions, poster).
 */
export function StreamedVideo({
  src,
  ref,
  onAttached,
  ...props
}: Omit<VideoHTMLAttributes<HTMLVideoElement>, "src"> & {
  src: string | null;
  ref?: Ref<HTMLVideoElement | null>;
  onAttached?: (video: HTMLVideoElement) => void;
}) {
  const video = useRef<HTMLVideoElement>(null);
  useImperativeHandle(ref, () => video.current as HTMLVideoElement);
  const { attached, stream } = useStreamSource(video, src);
  const started = useRef(onAttached);
  started.current = onAttached;
  useEffect(() => {
    if (attached && video.current) started.current?.(video.current);
  }, [attached]);
  return <video ref={video} poster={stream?.poster ?? undefined} {...props} />;
}
