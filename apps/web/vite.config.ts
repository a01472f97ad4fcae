import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const server = process.env.HIKAYA_SERVER ?? "http://localhost:8080";

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: { "/api": server, "/auth": server, "/storage": server },
  },
  build: {
    target: "es2022",
    sourcemap: false,
    chunkSizeWarningLimit: 400,
  },
});
