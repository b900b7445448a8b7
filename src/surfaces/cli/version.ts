/** The CLI's version, kept equal to package.json's (test/surfaces/cli/startup-modules.test.ts checks). */
export const CLI_VERSION = "0.1.0";
