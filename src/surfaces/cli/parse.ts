import { InvalidArgumentError } from "commander";

/** A commander argument parser for a whole number above 0; the error names the flag. */
export function positiveInteger(flag: string): (value: string) => number {
  return (value: string) => {
    if (!/^\d+$/.test(value) || Number(value) < 1)
      throw new InvalidArgumentError(`${flag} takes a whole number above 0 (got "${value}").`);
    return Number(value);
  };
}
