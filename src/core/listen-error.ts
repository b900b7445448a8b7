import { SkillgateError } from "./errors.js";

/** What a listening server could not do, and where. */
export interface ListenErrorData {
  readonly host: string;
  readonly port: number;
  /** The system's error code (`EADDRINUSE`, `EACCES`, `ENOTFOUND`…). */
  readonly systemCode: string;
  /** What to do about it, in a sentence. */
  readonly hint: string;
}

/**
 * A server could not listen on the address a person gave: the port is taken
 * (`port_in_use`), the system refuses it (`port_not_permitted`, a port below 1024 without
 * privileges), or the host is not an address of this machine (`host_not_bindable`). The
 * message ends with the hint, so the one line the CLI prints says what to do.
 */
export class ListenError extends SkillgateError<ListenErrorData> {
  constructor(
    code: "port_in_use" | "port_not_permitted" | "host_not_bindable",
    message: string,
    data: ListenErrorData,
    cause: unknown,
  ) {
    super(code, `${message}: ${data.hint}`, data, { cause });
  }
}

/** Host name lookups and addresses that are not this machine's. */
const BAD_HOST_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "EADDRNOTAVAIL", "EAI_FAIL"]);

/**
 * The error of `server.listen(port, host)` as a {@link ListenError} when a person could
 * have caused it (and fix it); any other error is returned as it is.
 */
export function listenError(error: unknown, host: string, port: number): unknown {
  const systemCode = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof systemCode !== "string") return error;
  const where = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  if (systemCode === "EADDRINUSE")
    return new ListenError(
      "port_in_use",
      `cannot listen on ${where}: another program is using the port`,
      {
        host,
        port,
        systemCode,
        hint: "stop that program, or choose another port with --port N (0 takes any free port)",
      },
      error,
    );
  if (systemCode === "EACCES" || systemCode === "EPERM")
    return new ListenError(
      "port_not_permitted",
      `cannot listen on ${where}: the system does not permit it`,
      {
        host,
        port,
        systemCode,
        hint:
          port < 1024
            ? "ports below 1024 need privileges; choose one from 1024 up with --port N"
            : "choose another port with --port N, or check what forbids this one",
      },
      error,
    );
  if (BAD_HOST_CODES.has(systemCode))
    return new ListenError(
      "host_not_bindable",
      `cannot listen on ${where}: ${host} is not an address of this machine (${systemCode})`,
      {
        host,
        port,
        systemCode,
        hint: "give --host an address of this machine, such as 127.0.0.1 (the default) or 0.0.0.0 for every interface",
      },
      error,
    );
  return error;
}
