// Renders GET /openapi.json with the vendored Scalar API reference
// (scalar-api-reference.js): searchable (Ctrl/Cmd+K), and "Test Request"
// sends the API key entered under Authentication as x-api-key, to this
// origin. Nothing is loaded from elsewhere: no fonts, no telemetry, no proxy,
// no hosted AI agent or MCP generator.
Scalar.createApiReference('#app', {
  url: '/openapi.json',
  servers: [{ url: window.location.origin, description: 'This instance' }],
  authentication: { preferredSecurityScheme: 'ApiKeyAuth' },
  withDefaultFonts: false,
  telemetry: false,
  persistAuth: false,
  hideClientButton: false,
  showOperationId: true,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  metaData: { title: 'svc API reference' },
})
