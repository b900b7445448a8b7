/** Where the generated validator lives. */
export declare const GENERATED_FILE: string;
/** The generated file's whole text, from the installed ajv. */
export declare function generatedText(): string;
