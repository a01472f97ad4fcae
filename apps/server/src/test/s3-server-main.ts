// Runs s3rver in its own process (so tests measure the app's memory, not the fake server's) and prints
// its port once listening. Arguments: <directory> <bucket>.
import S3rver from "s3rver";

const [directory, bucket] = process.argv.slice(2) as [string, string];
const server = new S3rver({
  port: 0,
  address: "127.0.0.1",
  silent: true,
  directory,
  configureBuckets: [{ name: bucket, configs: [] }],
});
const { port } = await server.run();
process.stdout.write(`${port}\n`);
process.on("SIGTERM", () => void server.close().then(() => process.exit(0)));
