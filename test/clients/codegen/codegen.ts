import type { CodegenConfig } from '@graphql-codegen/cli';
import { addTypenameSelectionDocumentTransform } from '@graphql-codegen/client-preset';

const config: CodegenConfig = {
  // The schema as chatgraph serves it (with @defer): this file, or the gateway's URL.
  schema: 'schema/schema.graphql',
  documents: ['test/clients/codegen/operations.ts'],
  generates: {
    'test/clients/codegen/gql/': {
      preset: 'client',
      // persisted-documents.json, for PERSISTED_OPERATIONS=trusted; sha256, the APQ hash.
      presetConfig: { persistedDocuments: { hashAlgorithm: 'sha256' } },
      // The persisted text has every __typename a normalized cache adds to the query it sends.
      documentTransforms: [addTypenameSelectionDocumentTransform],
      // Long: a JSON number (safe integers); no date scalar, times are Long UNIX seconds.
      config: { scalars: { Long: 'number', JSON: 'unknown', Upload: 'File' }, onlyOperationTypes: true, strictScalars: true, useTypeImports: true, emitLegacyCommonJSImports: false },
    },
  },
};
export default config;
