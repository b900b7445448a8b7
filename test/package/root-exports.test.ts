import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const entry = join(root, "src", "index.ts");

// The root is the package's top tier (docs/library.md): changing what it exports is a
// deliberate act, so the list is written out here and a change must edit it.
const ROOT_EXPORTS = [
  "ApprovalAlreadyAnsweredError",
  "ApprovalAnswer",
  "ApprovalAnswerNotOfferedError",
  "ApprovalExpiredError",
  "ApprovalMode",
  "ApprovalNotFoundError",
  "ApprovalQueueError",
  "ApprovalQueueErrorCode",
  "ApprovalQueueFullError",
  "ApprovalRequest",
  "ApprovalSettledError",
  "Approver",
  "AuditEvent",
  "AuditEventType",
  "AuditSink",
  "BootstrapCatalogOptions",
  "BuiltinReadOnlyError",
  "CallStatus",
  "Catalog",
  "CatalogOptions",
  "CatalogSetup",
  "CatalogSetupOptions",
  "ChatLogUnreadableError",
  "DecisionKind",
  "DecisionReason",
  "Diagnostic",
  "DiagnosticCode",
  "DiscoveryResult",
  "DraftLockReason",
  "DraftLockedError",
  "ErrorCode",
  "FileTooLargeError",
  "FolderOptions",
  "Folders",
  "ImportErrorCode",
  "ImportErrorData",
  "ImportRefusedError",
  "InvalidArgumentError",
  "InvalidConfigError",
  "InvalidExtensionError",
  "InvalidSkillNameError",
  "InvalidToolArgumentsError",
  "ListenError",
  "ListenErrorData",
  "LogFields",
  "Logger",
  "NotFoundError",
  "PathNotAllowedError",
  "PlanExpiredError",
  "PlanNotFoundError",
  "PolicyDecision",
  "QueueClient",
  "QueueFullError",
  "CapabilityError",
  "ControllerKeyChangedError",
  "ControllerRequestError",
  "DuplicateRequestError",
  "LuaSkillError",
  "ManifestError",
  "NodeError",
  "PackageError",
  "QueueRequestTooLargeError",
  "QueueOutcomeStatus",
  "QueueRequest",
  "QueueResponse",
  "QueueStatus",
  "QueueUnavailableError",
  "QueueWorkerInfo",
  "WorkerCannotReachQueueError",
  "WorkerLeftWithoutQueueError",
  "RationaleTooLongError",
  "ReasonCode",
  "RunLimits",
  "RunRequest",
  "RunResult",
  "RunSkillScriptInput",
  "RunSkillScriptOutcome",
  "RunStatus",
  "Runner",
  "ScriptCheckFailedError",
  "ScriptCheckProblem",
  "Severity",
  "Skill",
  "SkillChangedError",
  "SkillDecision",
  "SkillExistsError",
  "SkillFileTooLargeError",
  "SkillInvalidError",
  "SkillNotFoundError",
  "SkillPathNotAllowedError",
  "SkillSymlinkError",
  "SkillTooLargeError",
  "SkillUnreadableError",
  "Skillgate",
  "SkillgateConfig",
  "SkillgateError",
  "SkillgateOptions",
  "SourceReport",
  "StoreArgumentError",
  "StoreBusyError",
  "StoreCorruptError",
  "StoreError",
  "StoreErrorCode",
  "TooManyDomainsError",
  "TooManyFilesError",
  "TooManyPlansError",
  "TooManySkillsError",
  "TooManySourceChatsError",
  "ToolCallResult",
  "Turn",
  "TurnOptions",
  "UnknownEventError",
  "UnknownHashError",
  "bootstrapCatalog",
  "bootstrapSkillgate",
  "createCatalog",
  "createSkillgate",
  "exitCodeFor",
  "isSkillgateError",
  "runSkillScript",
];

// Every module in src, so an error class the root does not reach is seen too.
const sources = ts.sys.readDirectory(join(root, "src"), [".ts"]);
const program = ts.createProgram(sources, {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: ["node"],
});
const checker = program.getTypeChecker();

function exportsOf(file: string): string[] {
  const source = program.getSourceFile(file);
  const symbol = source === undefined ? undefined : checker.getSymbolAtLocation(source);
  if (symbol === undefined) throw new Error(`${file} is not a module`);
  return checker.getExportsOfModule(symbol).map((exported) => exported.getName());
}

/** Every exported class in src whose base-class chain reaches core/errors.ts's SkillgateError. */
function skillgateErrorClasses(): string[] {
  const found = new Set<string>();
  for (const source of program.getSourceFiles()) {
    if (!source.fileName.startsWith(join(root, "src"))) continue;
    for (const statement of source.statements) {
      if (!ts.isClassDeclaration(statement) || statement.name === undefined) continue;
      if (!statement.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) continue;
      let type: ts.Type | undefined = checker.getTypeAtLocation(statement.name);
      while (type !== undefined) {
        const declaration = type.getSymbol()?.declarations?.[0];
        if (
          type.getSymbol()?.getName() === "SkillgateError" &&
          declaration?.getSourceFile().fileName.endsWith("core/errors.ts")
        ) {
          found.add(statement.name.text);
          break;
        }
        type = checker.getBaseTypes(type as ts.InterfaceType)[0];
      }
    }
  }
  return [...found].sort();
}

describe("the package root", () => {
  it("exports exactly the listed entry points, types and error classes", () => {
    expect(exportsOf(entry).sort()).toEqual([...ROOT_EXPORTS].sort());
  });

  it("exports every SkillgateError subclass a module in src declares", () => {
    const classes = skillgateErrorClasses();
    // The scan must see the store's and the import's errors (thrown today, reached through Store).
    expect(classes).toEqual(expect.arrayContaining(["SkillgateError", "StoreError", "ImportRefusedError"]));
    const missing = classes.filter((name) => !ROOT_EXPORTS.includes(name));
    expect(missing).toEqual([]);
  });
});
