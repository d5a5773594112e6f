/**
 * @generated SignedSource<<9e801be2a48f5a485a52a1fcbd818cf6>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type operationsRenameSnippetMutation$variables = {
  id: number;
  title: string;
};
export type operationsRenameSnippetMutation$data = {
  readonly editSavedSnippet: {
    readonly savedSnippet: {
      readonly id: string;
      readonly title: string;
    } | null | undefined;
  };
};
export type operationsRenameSnippetMutation = {
  response: operationsRenameSnippetMutation$data;
  variables: operationsRenameSnippetMutation$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "id"
  },
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "title"
  }
],
v1 = [
  {
    "alias": null,
    "args": [
      {
        "kind": "Variable",
        "name": "id",
        "variableName": "id"
      },
      {
        "kind": "Variable",
        "name": "title",
        "variableName": "title"
      }
    ],
    "concreteType": "SavedSnippetPayload",
    "kind": "LinkedField",
    "name": "editSavedSnippet",
    "plural": false,
    "selections": [
      {
        "alias": null,
        "args": null,
        "concreteType": "SavedSnippet",
        "kind": "LinkedField",
        "name": "savedSnippet",
        "plural": false,
        "selections": [
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "id",
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "title",
            "storageKey": null
          }
        ],
        "storageKey": null
      }
    ],
    "storageKey": null
  }
];
return {
  "fragment": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Fragment",
    "metadata": null,
    "name": "operationsRenameSnippetMutation",
    "selections": (v1/*:: as any*/),
    "type": "Mutation",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "operationsRenameSnippetMutation",
    "selections": (v1/*:: as any*/)
  },
  "params": {
    "cacheID": "b691f7c980cafc75da2e557c99616ee0",
    "id": null,
    "metadata": {},
    "name": "operationsRenameSnippetMutation",
    "operationKind": "mutation",
    "text": "mutation operationsRenameSnippetMutation(\n  $id: Long!\n  $title: String!\n) {\n  editSavedSnippet(id: $id, title: $title) {\n    savedSnippet {\n      id\n      title\n    }\n  }\n}\n"
  }
};
})();

(node as any).hash = "548e55d081533281c62e6942cc1a86a2";

export default node;
