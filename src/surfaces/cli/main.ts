#!/usr/bin/env node
import { telemetryConfigured } from "../../observe/telemetry-environment.js";
import { endQuietlyOnClosedPipe } from "./output.js";
import { CLI_VERSION } from "./version.js";

endQuietlyOnClosedPipe(process.stdout);
endQuietlyOnClosedPipe(process.stderr);
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  // The one answer that needs no parser: printed as commander prints it, without loading commander.
  process.stdout.write(`${CLI_VERSION}\n`);
} else {
  // OpenTelemetry's SDK is loaded only when the owner configured an exporter (OTEL_* variables).
  const telemetry = telemetryConfigured(process.env)
    ? await (await import("../../observe/telemetry.js")).startTelemetryFromEnvironment()
    : undefined;
  const { runCli } = await import("./program.js");
  process.exitCode = await runCli(argv);
  // Spans and metrics still buffered are exported before the process ends.
  await telemetry?.shutdown().catch(() => undefined);
}
