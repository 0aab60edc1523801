// The pure heart of a sync: snapshot → annotation stage → model → nginx.conf, with the options every caller derives
// from the flags the same way. The build worker, the webhook's judge, `portico render` and `migrate-check` call it.
import type { Config } from '../config/config.js';
import type { Logger } from '../log.js';
import { buildModel } from '../model/build.js';
import type { Ingress, ModelOptions, Snapshot } from '../model/input.js';
import type { Model, Problem } from '../model/types.js';
import { DEFAULT_TLS_SETTINGS, type TlsSettings } from '../model/tls-types.js';
import { tlsSettingsOf } from '../model/settings.js';
import { renderNginxConf, type RenderedConf, type RenderOptions } from '../render/nginx-conf.js';
import { AnnotationStage, type StageResult } from './annotations.js';
import { targetPolicy } from './target-policy.js';
import { listenerPortPolicy } from './listener-ports.js';

/** How candidates are judged: the model options (for the class) and the problems a snapshot gives. */
export interface Checker {
  readonly options: ModelOptions;
  problems(snapshot: Snapshot): readonly Problem[];
}

export function modelOptions(config: Config, tls: TlsSettings = DEFAULT_TLS_SETTINGS): ModelOptions {
  return {
    controllerClass: config.controllerClass,
    ingressClass: config.ingressClass,
    watchIngressWithoutClass: config.watchIngressWithoutClass,
    ingressClassByName: config.ingressClassByName,
    disableCatchAll: config.disableCatchAll,
    disableExternalNames: config.disableSvcExternalName,
    defaultBackendService: config.defaultBackendService,
    loadBalance: config.defaultLoadBalance,
    strictHostOwnership: config.strictHostOwnership,
    allowCrossNamespaceCanaries: config.allowCrossNamespaceCanaries,
    tls: { annotationsPrefix: config.annotationsPrefix, defaultCertificate: config.defaultSslCertificate, settings: tls },
    targets: targetPolicy(config),
    gateway: config.enableGatewayApi ? gatewayOptions(config) : undefined,
    ...streamOptions(config),
  };
}

/** The Gateway options: the controller name, where listeners are served and which local ports they may not take. */
function gatewayOptions(config: Config): NonNullable<ModelOptions['gateway']> {
  const { ports, own, stream } = listenerPortPolicy(config);
  return { controllerName: config.gatewayControllerName, ports, reserved: { own, stream } };
}

/** Render options from the flags; `accessLog`: the access log file when the ConfigMap names none (default: stdout). */
export function renderOptions(config: Config, user: RenderOptions['user'], accessLog?: string): RenderOptions {
  return {
    ...(accessLog === undefined ? {} : { defaultAccessLog: accessLog }),
    workDir: config.workDir,
    luaDir: config.luaDir,
    httpPort: config.httpPort,
    httpsPort: config.httpsPort,
    ...(config.gatewayH2cPorts.length > 0 ? { h2cPorts: config.gatewayH2cPorts } : {}),
    statusPort: config.statusPort,
    defaultServerPort: config.defaultServerPort,
    listenAddress: config.listenAddress,
    user,
    workerProcesses: config.workerProcesses,
    metrics: config.enableMetrics,
    ...(config.enableMetrics && config.metricsPerUndefinedHost ? { metricsUndefinedHosts: true } : {}),
    dynamicRoutes: config.enableDynamicRoutes,
  };
}

/** How buildAndRender builds: a trial (nothing kept), and who is told of the model before nginx.conf is rendered. */
export interface BuildHow {
  readonly trial?: boolean;
  readonly built?: (model: Model) => void;
}

/**
 * Snapshot → annotation stage → model → nginx.conf; the model's problems include the annotation stage's. `served`: the
 * Ingress versions the model read. `how`: a trial when true (BuildHow).
 */
export function buildAndRender(
  stage: AnnotationStage,
  snap: Snapshot,
  config: Config,
  render: RenderOptions,
  how: boolean | BuildHow = false,
): { model: Model; conf: RenderedConf; served: readonly Ingress[] } {
  const { trial = false, built } = typeof how === 'boolean' ? { trial: how } : how;
  const st = stage.run(snap, modelOptions(config), trial);
  const model = buildStaged(stage, st, config);
  built?.(model);
  return { model, conf: renderBuilt(stage, st, model, { config, render, trial }), served: st.snapshot.ingresses };
}

/** The model of an annotation stage's result, with the stage's problems. */
export function buildStaged(stage: AnnotationStage, st: StageResult, config: Config): Model {
  const opts = modelOptions(config);
  const built = buildModel(st.snapshot, { ...modelOptions(config, tlsSettingsOf(st.global)), loadBalance: st.global.loadBalance ?? opts.loadBalance, memo: stage.memo }, st.input);
  return { ...built, problems: [...st.problems, ...built.problems] };
}

/** nginx.conf for `model`, with the global settings of the stage's result (a trial neither reads nor fills the render memo). */
export function renderBuilt(stage: AnnotationStage, st: StageResult, model: Model, { config, render, trial = false }: { config: Config; render: RenderOptions; trial?: boolean }): RenderedConf {
  const dbs = config.defaultBackendService;
  const defaultUpstream = dbs ? model.upstreams.find((u) => u.service.namespace === dbs.namespace && u.service.name === dbs.name)?.name : undefined;
  return renderNginxConf(model, { ...render, global: st.global, headers: st.headers, defaultUpstream, ...(trial ? {} : { memo: stage.renderMemo }) });
}

/**
 * The webhook's judge: the annotation stage (fresh, so nothing is remembered between reviews) and the model, exactly
 * as a sync runs them, without rendering anything.
 */
export function admissionChecker(config: Config, log: Logger): Checker {
  const options = modelOptions(config);
  return {
    options,
    problems: (snap) => {
      const st = new AnnotationStage(config, log).run(snap, options);
      return [...st.problems, ...buildModel(st.snapshot, options, st.input).problems];
    },
  };
}

/**
 * The model's stream options. Without any stream flag the model has no stream section (nginx.conf is exactly as
 * before) but still warns about ssl-passthrough annotations. Reserved ports: Portico's own (traffic, healthz, status,
 * default server, webhook).
 */
function streamOptions(config: Config): Pick<ModelOptions, 'stream'> {
  const { tcpServicesConfigmap: tcp, udpServicesConfigmap: udp, enableSslPassthrough: passthrough } = config;
  return { stream: { tcp, udp, passthrough, reservedPorts: targetPolicy(config).ownPorts, annotationsPrefix: config.annotationsPrefix } };
}
