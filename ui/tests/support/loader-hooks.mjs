// Node module hooks that let the window's TypeScript modules run in node without a browser or a
// bundler: `.ts` is stripped of its types by the TypeScript compiler, and a `.svelte.ts` /
// `.svelte.js` module (runes: $state, $derived, $effect) is then compiled by Svelte for the
// client, as Vite does for the app. Imports written the bundler's way (`./ipc/call` for `./ipc/call.ts`)
// resolve as they do in the build. Registered by `register.mjs`; see tests/unit/.
import { readFile } from "node:fs/promises";
import { statSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import { compileModule } from "svelte/compiler";

const SUFFIXES = ["", ".ts", ".svelte.ts", ".js", "/index.ts"];

export async function resolve(specifier, context, next) {
  const relative = specifier.startsWith("./") || specifier.startsWith("../");
  if (relative && context.parentURL?.startsWith("file:")) {
    const base = fileURLToPath(new URL(specifier, context.parentURL));
    for (const suffix of SUFFIXES) {
      const candidate = base + suffix;
      if (statSync(candidate, { throwIfNoEntry: false })?.isFile()) {
        return { url: pathToFileURL(candidate).href, shortCircuit: true };
      }
    }
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  const svelteModule = /\.svelte\.(ts|js)$/.test(url);
  if (!url.endsWith(".ts") && !svelteModule) return next(url, context);
  const path = fileURLToPath(url);
  let source = await readFile(path, "utf8");
  if (url.endsWith(".ts")) {
    source = ts.transpileModule(source, {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, verbatimModuleSyntax: true },
      fileName: path,
    }).outputText;
  }
  if (svelteModule) {
    source = compileModule(source, { filename: path, generate: "client", dev: false }).js.code;
  }
  return { format: "module", source, shortCircuit: true };
}
