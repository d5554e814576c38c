/**
 * Writes the server's OpenAPI document to sdk/openapi.json and the SDK's types generated from it
 * to sdk/src/schema.ts. Run it (`npm run generate:sdk`) after changing a route's schema.
 */
import { writeFileSync } from "node:fs";
import { relative } from "node:path";
import { GENERATED_FILES, generateSdkSources } from "./sources.js";

const sources = await generateSdkSources();
writeFileSync(GENERATED_FILES.openapi, sources.openapi);
writeFileSync(GENERATED_FILES.schema, sources.schema);
for (const file of Object.values(GENERATED_FILES)) console.log(`wrote ${relative(process.cwd(), file)}`);
