#!/usr/bin/env node
import { endQuietlyOnClosedPipe } from "./output.js";
import { runCli } from "./program.js";

endQuietlyOnClosedPipe(process.stdout);
endQuietlyOnClosedPipe(process.stderr);
process.exitCode = await runCli(process.argv.slice(2));
