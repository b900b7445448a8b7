type TypeScriptModule = typeof import("typescript");
let loaded: Promise<TypeScriptModule> | undefined;

/**
 * A TypeScript file's source with its types stripped, as an ES module (Node 20 has no type
 * stripping of its own). `transpileModule` compiles one file alone: no type check, no
 * resolution of imports. The compiler is loaded on first use only (it is large).
 */
export async function stripTypes(source: string, fileName: string): Promise<string> {
  loaded ??= import("typescript").then(
    (module) => ((module as { default?: TypeScriptModule }).default ?? module) as TypeScriptModule,
  );
  const ts = await loaded;
  return ts.transpileModule(source, {
    fileName,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      sourceMap: false,
      inlineSourceMap: false,
    },
  }).outputText;
}
