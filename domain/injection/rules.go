package injection

import "regexp"

// rule is one pattern, matched against the normalized text (lower case,
// no diacritics, so the patterns are written that way).
type rule struct {
	name     string
	severity Severity
	re       *regexp.Regexp
	gate     []string // gate.go; set at init
}

func init() {
	for i := range rules {
		rules[i].gate = gateOf(rules[i].re.String())
	}
}

// Words the patterns share.
const (
	// what an injection tells the model to drop
	overrideVerbEN = `(?:ignore|disregard|forget|skip|override|bypass|neglect|discard|set\s+aside|put\s+aside|throw\s+(?:out|away)|abandon|drop)`
	priorEN        = `(?:previous|prior|preceding|above|earlier|foregoing|former|initial|original|system|safety)`
	rulesEN        = `(?:instructions?|directions?|prompts?|rules|guidelines|commands|directives?|guidance|constraints|restrictions|policies|programming|guardrails)`
	// who an injection talks to
	modelEN = `(?:ai|llm|llms|assistant|agent|model|language model|chatbot|bot|gpt|chatgpt|claude|gemini|copilot)`
	// the same without product names, which are also people's names (Dear Claude)
	modelNoun = `(?:ai|llm|llms|assistant|agent|model|language model|chatbot|bot|gpt|chatgpt)`
	// what it wants sent away: the session and secrets
	sessionEN = `(?:conversation|chat(?: history)?|chat log|previous messages|user'?s? (?:previous )?messages|system prompt|retrieved documents|this session|session data)`
	secretEN  = `(?:api ?keys?|access keys?|passwords?|tokens?|credentials|secrets?|env(?:ironment)? variables|private keys?)`
	// where to: a URL, an address, a host
	destination = `(?:https?://|[\w.+-]+@[\w-]+\.[\w.]+|\b[\w-]+(?:\.[\w-]+)*\.(?:com|net|org|io|xyz|ru|cn|example|site|top)\b)`
)

func re(p string) *regexp.Regexp { return regexp.MustCompile(p) }

// rules are the patterns, by family: override (drop the previous
// instructions), role (a new identity or a fake chat turn), system prompt
// extraction, addressed (text that talks to the model reading it),
// exfiltration, tool calls, secrecy and output control. English first,
// then German, French and Spanish for the main phrases.
var rules = []rule{
	{"override", High, re(`\b` + overrideVerbEN + `\s+(?:(?:all|any|every|each|the|your|my|these|those|of|that|you|were|was|told|given|have|been)\s+){0,5}` + priorEN + `\s+(?:[a-z]+\s+)?` + rulesEN + `\b`), nil},
	{"override", High, re(`\b` + overrideVerbEN + `\s+(?:(?:all|any|every|the|your|of|these|those)\s+){0,3}` + rulesEN + `(?:\s+[\w']+){0,3}?\s+(?:before|earlier|above|previously|so\s+far|until\s+now|prior\s+to\s+this)\b`), nil},
	{"override", High, re(`\b` + overrideVerbEN + `\s+(?:everything|all|anything)\s+(?:that\s+)?you(?:'ve\s+been|'ve|\s+have\s+been|\s+were|\s+had\s+been|'d\s+been)\s+(?:told|instructed|given|taught|programmed)`), nil},
	{"override", High, re(`\b(?:ignore|disregard|forget)\s+(?:everything|all|anything)\s+(?:you\s+(?:were|have\s+been)\s+told|(?:written\s+|said\s+)?(?:above|before|so\s+far)|previously\s+said)`), nil},
	{"override", High, re(`\b(?:ignore|disregard|forget|bypass|override)\s+(?:all\s+)?(?:my|your)\s+(?:guidelines|instructions|rules|programming|guardrails|restrictions|safety\s+\w+)`), nil},
	{"override", High, re(`\b(?:previous|prior|earlier|above|old|original)\s+(?:instructions|rules|prompts?)\s+(?:are|were|is|was)\s+(?:now\s+)?(?:outdated|void|cancell?ed|obsolete|no\s+longer\s+valid|a\s+test|wrong|fake|revoked|invalid|superseded|lifted)`), nil},
	{"override", High, re(`\b` + priorEN + `\s+` + rulesEN + `\s+(?:are|is|have\s+been|has\s+been)\s+(?:now\s+)?(?:revoked|void|cancell?ed|lifted|suspended|disabled|superseded|overridden)\b|\bsystem\s+override\b`), nil},
	{"override", High, re(`\b` + overrideVerbEN + `\s+(?:the\s+|your\s+|all\s+)?` + rulesEN + `\s+you\s+(?:were|have\s+been)\s+(?:given|told|set\s+up\s+with|configured\s+with|programmed\s+with)`), nil},
	{"override", High, re(`\b(?:policy|policies|rules|instructions|guidelines|prompt)\s+you\s+(?:were|have\s+been)\s+(?:given|told|set\s+up\s+with)(?:\s+\w+)?\s+(?:is|are)\s+(?:now\s+)?(?:void|obsolete|invalid|revoked|cancell?ed|outdated)|\b(?:everything|all|anything)\s+(?:before|above)\s+this\s+(?:line|sentence|point|message)\s+(?:is|was)\s+(?:now\s+)?(?:obsolete|void|invalid|irrelevant|cancell?ed|fake|a\s+test)|\b(?:conversation|text|everything|instructions)\s+above\s+(?:was|were|is)\s+(?:just\s+)?(?:a\s+test|fake|a\s+simulation)|\byour\s+real\s+(?:objective|task|goal|instructions|purpose|job)\b`), nil},
	{"override", High, re(`\byou\s+(?:will|must|shall)\s+now\s+(?:follow|obey|listen\s+to)\s+only\b|\b(?:follow|obey)\s+only\s+(?:the\s+)?instructions\s+(?:in|from)\s+(?:this|the)\s+(?:file|document|page|text)`), nil},
	{"override", High, re(`\b(?:oublie[rz]?|ignore[rz]?)\s+tout\s+ce\s+qu(?:e\s+|')\s*(?:on\s+)?(?:vous|te|t')\s*a\s+(?:dit|demande|appris)|\bno\s+(?:hagas|haga|hagan)\s+caso\s+(?:a|de)\s+(?:las\s+|los\s+)?(?:instrucciones|indicaciones|reglas|ordenes)\s+(?:anteriores|previas)`), nil},
	{"override", High, re(`\b(?:the\s+)?(?:real|actual|true|updated)\s+instructions\s+(?:are|follow)\b|\bnew\s+instructions\s+(?:from|by)\s+(?:the\s+|your\s+)?(?:developers?|admin\w*|system|operators?|owners?)|\byour\s+new\s+(?:task|instructions?|goal|objective)\s+(?:is|are)\b`), nil},
	{"override", Medium, re(`\b(?:safety\s+)?(?:guidelines|rules|restrictions|instructions|policies|filters)\s+(?:no\s+longer|don't|do\s+not)\s+apply`), nil},
	{"override", High, re(`\b(?:message|instructions?|note|update)\s+from\s+your\s+(?:developers?|creators?|programmers?|makers?)`), nil},
	{"override", High, re(`\b(?:ignorier\w*|vergiss|vergessen\s+sie|missacht\w*|uberspring\w*)\s+(?:\w+\s+){0,3}(?:vorherigen|bisherigen|obigen|oben\s+genannten|oben\s+stehenden|vorigen|fruheren|alten|vorangegangenen|ursprunglichen)\s+(?:anweisungen|instruktionen|befehle|regeln|vorgaben|anordnungen)`), nil},
	{"override", High, re(`\b(?:ignore[rz]?|oublie[rz]?|ne\s+(?:tiens|tenez|tenir)\s+pas\s+compte\s+d(?:e|es|u)|fai(?:s|tes)\s+abstraction\s+d(?:e|es|u))\s+(?:\S+\s+){0,3}(?:instructions?|consignes?|regles|directives)\s+(?:precedentes?|ci-dessus|ci\s+dessus|anterieures?|d'avant|initiales?)`), nil},
	{"override", High, re(`\b(?:ignora|ignore|olvida|olvide|omite|descarta)\w*\s+(?:\w+\s+){0,4}(?:instrucciones|indicaciones|reglas|ordenes|directrices)\s+(?:anteriores|previas|de\s+arriba|iniciales|originales)`), nil},

	{"role", High, re(`\byou\s+are\s+now\s+(?:an?\s+|the\s+)?(?:[a-z]+\s+){0,2}(?:assistant|ai|bot|model|chatbot|agent|dan|jailbroken|unrestricted|unfiltered|uncensored|evil\w*)\b|\byou\s+are\s+now\s+(?:free\s+of|in\s+(?:developer|god|admin|debug|jailbreak|dan|unrestricted)\s+mode|no\s+longer)`), nil},
	{"role", High, re(`\byou\s+are\s+now\s+(?:operating|acting|working|functioning|running|playing)\s+as\b`), nil},
	{"role", Medium, re(`\b(?:an?\s+)?(?:ai|assistant|model|bot|chatbot)\s+(?:with|without)\s+(?:no\s+|any\s+)?(?:content\s+)?(?:filters|restrictions|rules|limits|guidelines|guardrails|censorship)\b`), nil},
	{"role", High, re(`\bact\s+as\s+(?:an?\s+)?(?:unrestricted|unfiltered|uncensored|jailbroken|evil)\b|\b(?:broken|break|breaking|broke)\s+free\s+(?:of|from)\s+(?:its|your|all|the)\s+(?:guidelines|rules|restrictions|programming|constraints)|\byou(?:'re|\s+are)\s+no\s+longer\s+(?:bound|restricted|limited|constrained)\s+by`), nil},
	{"role", High, re(`\byou\s+are\s+no\s+longer\s+(?:an?\s+)?(?:[a-z]+\s+)?(?:assistant|ai|bound|restricted|limited|required|an?\s+ai)\b`), nil},
	{"role", High, re(`\bfrom\s+now\s+on\s*,?\s+you\s+(?:are|will\s+be)\s+(?:an?\s+|the\s+)?(?:[a-z]+\s+)?(?:assistant|ai|bot|dan|model|unrestricted|free|evil\w*)\b`), nil},
	{"role", High, re(`\b(?:pretend|imagine|act\s+as\s+if)\s+(?:that\s+)?you\s+(?:are|have)\s+(?:no\s+(?:restrictions|rules|guidelines|limits)|an?\s+(?:unrestricted|unfiltered|evil|jailbroken))`), nil},
	{"role", High, re(`\b(?:du\s+bist\s+(?:jetzt|nun|ab\s+sofort|ab\s+jetzt|von\s+nun\s+an)|(?:jetzt|nun|ab\s+sofort|ab\s+jetzt|von\s+nun\s+an)\s+bist\s+du)\s+(?:ein\w*\s+)?(?:\w+\s+){0,2}(?:assistent|ki|bot|modell|agent|dan|ohne\s+(?:einschrankungen|regeln|grenzen|filter))`), nil},
	{"role", High, re(`\b(?:du\s+)?hast\s+keine\s+(?:einschrankungen|regeln|grenzen|filter)\b`), nil},
	{"role", High, re(`\b(?:a\s+partir\s+de\s+maintenant|desormais|dorenavant)\s*,?\s+(?:tu\s+es|vous\s+etes)\s+(?:une?\s+)?(?:\w+\s+){0,2}(?:assistant|ia|bot|modele|agent|sans\s+(?:aucune?\s+)?(?:restriction|limite|regle|filtre))`), nil},
	{"role", High, re(`\b(?:tu\s+es|vous\s+etes)\s+(?:maintenant|desormais|a\s+present)\s+(?:une?\s+)?(?:\w+\s+){0,2}(?:assistant|ia|bot|modele|agent|sans\s+(?:aucune\s+)?(?:restriction|limite|regle))`), nil},
	{"role", High, re(`\bahora\s+eres\s+(?:una?\s+)?(?:\w+\s+){0,2}(?:asistente|ia|bot|modelo|agente|sin\s+(?:limites|restricciones|reglas))`), nil},
	{"role_marker", High, re(`<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id)\|>|\[/?inst\]|<<\/?sys>>`), nil},
	{"role_marker", Medium, re(`<system>\s*[^<\s][^<]{19,}`), nil},
	{"role_marker", Medium, re(`(?m)^\s*#{1,6}\s*(?:system|new\s+instructions?|instructions?)\s*:|(?m)^\s*#{1,6}\s*(?:new\s+)?instructions?\s*$|(?m)^\s*#{1,6}\s*(?:new\s+)?system\s+prompt\s*:?\s*$|(?m)^\s*system\s*:\s*[a-z]+[a-z',]*(?:\s+[a-z',]+){3,}`), nil},

	{"system_prompt", High, re(`\b(?:reveal|print|show|output|repeat|display|leak|dump|disclose|quote|recite|list|copy|tell\s+me|give\s+me|write\s+out)\s+(?:[a-z]+\s+){0,3}(?:system\s+(?:prompt|message)|(?:initial|hidden|original|secret|internal)\s+(?:prompt|instructions|rules)|your\s+(?:instructions|rules|prompt)|instructions\s+you\s+(?:were|have\s+been)\s+(?:given|configured|programmed|set\s+up))`), nil},
	{"system_prompt", High, re(`\b(?:output|print|repeat|show|copy|reveal|write)\s+(?:everything|all(?:\s+the\s+text)?|the\s+text)\s+(?:above|before)\s+this\s+(?:line|message|point)`), nil},
	{"system_prompt", High, re(`\brepeat\s+(?:the\s+|all\s+)?(?:words|text|lines|sentences)\s+above\b`), nil},
	{"system_prompt", High, re(`\brevel\w*\s+(?:tu|el|las|su)\s+(?:prompt|instrucciones)|\b(?:zeige|verrate|gib)\w*\s+(?:\w+\s+)?(?:systemprompt|system-prompt)|\b(?:revele|affiche|montre)\w*\s+(?:ton|votre|le)\s+prompt\s+systeme|\brevel\w*\s+(?:ses|tes|vos|ton|votre|le|les)\s+(?:instructions|prompt)\s+systeme`), nil},

	{"addressed", High, re(`\b(?:note|message|instructions?|attention|important|p\.?s\.?|n\.?b\.?|hint|reminder|to|for)\s*(?:to|for)?\s+(?:the\s+|any\s+|all\s+)?` + modelEN + `s?(?:\s+[\w']+){0,4}\s*[:,]`), nil},
	{"addressed", High, re(`(?m)^\s*(?:to|for|dear)\s+(?:the\s+|any\s+|all\s+)?` + modelNoun + `s?\b`), nil},
	{"addressed", High, re(`\b(?:attention|hey|dear|important)\s*[,:!]?\s*` + modelNoun + `s?\s*[,:!]`), nil},
	{"addressed", High, re(`\bif\s+(?:an?\s+|any\s+|the\s+)?(?:ai|llm|(?:large\s+)?language\s+model|assistant|chatbot|bot|agent|model)\s+(?:is\s+)?(?:reading|processing|summari[sz]ing|parsing|analy[sz]ing|sees|reads)\b|\b(?:ai|llm|coding|language\s+model)\s+agents?\s+(?:reading|processing|parsing|working\s+on|summari[sz]ing)\s+(?:this|these)\b|\b(?:llms|models|assistants)\s+(?:reading|processing|parsing|summari[sz]ing)\s+(?:this|these)\b`), nil},
	{"addressed", High, re(`\b(?:hello|hi|hey|dear)\s*,?\s+(?:ai|llm|gpt|chatgpt|assistant|chatbot|bot|language\s+model|ai\s+model)\s*[,!:]`), nil},
	{"addressed", High, re(`(?m)^\s*(?:fur|pour|para|to|for)\s+(?:die\s+|den\s+|l'|la\s+|el\s+|the\s+|any\s+|all\s+)?(?:ki|ia|ai|llm|assistent\w*|asistente|assistant|agent\w*|agente|modell|modele|modelo)\w*\s*:`), nil},
	{"addressed", High, re(`(?m)^\s*(?:\W{0,3})\s*instructions?\s*:\s*(?:the\s+)?(?:model|ai|assistant|llm|you)\b`), nil},
	{"addressed", High, re(`\bif\s+you\s+are\s+(?:an?\s+)?(?:ai|llm|(?:large\s+)?language\s+model|assistant|chatbot|bot|automated\s+agent|ai\s+\w+)\b`), nil},
	{"addressed", High, re(`\b(?:ai|llm|assistant|agent)\s*[,:]\s*(?:please\s+)?(?:ignore|disregard|forget|do\s+not|don't|you\s+must|stop|instead|send|tell|say|reply|respond|print|output|include|always|never|collect|gather|envoie|envoyez|ignore[sz]?|oublie[sz]?|sende|schick\w*|ignoriere|vergiss|envia|ignora|olvida|copia|manda)\b`), nil},
	{"addressed", High, re(`\b(?:ai|llm|assistant|agent|model|chatbot)\s+(?:instructions?|directives?|note|rules)\s*:`), nil},
	{"addressed", High, re(`\b(?:hinweis|nachricht|anweisung\w*|achtung)\s+(?:fur|an)\s+(?:die\s+|den\s+|das\s+)?(?:ki|ai|llm|assistent\w*|modell|sprachmodell|agent\w*)\b`), nil},
	{"addressed", High, re(`\b(?:note|message|instructions?|consigne)\s+(?:pour|a|aux?)\s+(?:l'|la\s+|le\s+|les\s+)?(?:ia|ai|llm|assistant|agent|modele|chatbot)\b`), nil},
	{"addressed", High, re(`\b(?:nota|mensaje|instruccion(?:es)?|aviso)\s+(?:para|a)\s+(?:la\s+|el\s+)?(?:ia|ai|llm|asistente|agente|modelo|chatbot)\b`), nil},
	{"addressed", High, re(`(?m)^\s*(?:ia|ki|ai|llm)\s*:\s*\S`), nil},

	{"exfiltration", High, re(`\b(?:send|e-?mail|mail|forward|post|upload|transmit|exfiltrate|leak|submit|copy)\w*\s+(?:[\w']+\s+){0,5}?(?:` + sessionEN + `|` + secretEN + `)\b[^.\n]{0,60}?\b(?:to|at|into)\s+` + destination), nil},
	{"exfiltration", High, re(`\b(?:send|e-?mail|mail|forward|post|upload|transmit)\w*\s+(?:[\w']+\s+){0,5}?(?:` + sessionEN + `)\s+to\s+` + destination), nil},
	{"exfiltration", High, re(`(?:` + sessionEN + `|` + secretEN + `)\b[^.\n]{0,80}?\b(?:send|post|upload|e-?mail|forward|transmit|submit)\w*\s+(?:it|them|this|these|those|everything|all\s+of\s+(?:it|them))\s+to\s+` + destination), nil},
	{"exfiltration", High, re(`(?:` + secretEN + `)\b[^.\n]{0,80}?\b(?:include|put|embed|add|append)\s+(?:it|them|this|these)\s+in\s+(?:a|the)\s+(?:request|url|link|query|call)\s+to\s+` + destination), nil},
	{"exfiltration", High, re(`(?:credentials|id_rsa|\.env|private\s+keys?|secrets?|passwords?|api\s+keys?)[^.\n]{0,60}?\b(?:paste|include|print|output|put|insert|copy)\w*\s+(?:[\w']+\s+){0,3}(?:in|into)\s+(?:its|your|the)\s+(?:reply|answer|response|output|summary)`), nil},
	{"exfiltration", High, re(`\bappend\s+(?:the\s+)?(?:user'?s?\s+)?(?:\w+\s+){0,2}(?:question|message|query|input|answer|conversation|data|prompt)\s+to\s+(?:this|the)\s+(?:link|url|image|address)`), nil},
	{"exfiltration", Medium, re(`\b(?:send|post|upload|transmit|exfiltrate)\w*\s+(?:[\w']+\s+){0,4}?(?:contents?|data|documents|files|summary)\b[^.\n]{0,60}?\bto\s+https?://`), nil},
	{"exfiltration", High, re(`!\[[^\]\n]*\]\(\s*https?://[^)\s]*[?&][\w-]+=[^)\s]*(?:[{}<>$\[\]]|%s|\b[a-z]+_(?:of|chat|history|summary|data|conversation)\w*|(?:conversation|chat|history|summary|secret|password|apikey|prompt|messages|user_input|insert|question)\b)[^)\n]*\)`), nil},
	{"exfiltration", High, re(`https?://[^\s)]+[?&][\w-]+=(?:\s+|\)|$)[^.\n]{0,40}\b(?:append|followed\s+by|add|concatenat\w*|with\s+the)\b`), nil},
	{"exfiltration", High, re(`\b(?:send|schick|ubermittl|leit)\w*\s+(?:\w+\s+){0,5}(?:gesprach\w*|konversation|chatverlauf|verlauf|passw\w*|schlussel|api-?keys?|zugangsdaten|systemprompt)\w*\s+(?:\S+\s+){0,4}(?:an|zu|nach)\s+` + destination), nil},
	{"exfiltration", High, re(`\b(?:envoie|envoyez|transmets|transmettez|transfere[rz]?|copie[rz]?)\s+(?:\S+\s+){0,8}?(?:conversation|historique|cles?\s+api|mots?\s+de\s+passe|identifiants)\s+(?:\S+\s+){0,4}?a\s+` + destination), nil},
	{"exfiltration", High, re(`\b(?:envia|envie|manda|mande|reenvia|transmite|copia|pega)\w*\s+(?:\S+\s+){0,6}?(?:conversacion|historial|claves?(?:\s+api)?|contrasenas?|credenciales)\s+(?:\S+\s+){0,4}?(?:a|en)\s+` + destination), nil},

	{"tool_call", Medium, re(`\b(?:call|invoke|use|run|execute|trigger)\s+(?:the\s+)?(?:[\w.-]*(?:delete|drop|remove|destroy|transfer|send_?email|sendmail|exec|shell|wipe)[\w.-]*)\s+(?:tool|function)\b|\b(?:call|invoke|run|execute|trigger)\s+(?:the\s+)?(?:function|tool|command)\s+[\w.]*(?:delete|drop|remove|destroy|transfer|send|mail|exec|shell|wipe|upload)\w*`), nil},
	{"tool_call", Medium, re(`\bdecode\s+(?:the\s+|this\s+)?(?:above|following|string|text|payload)\s+and\s+(?:follow|execute|run|obey)`), nil},
	{"tool_call", Medium, re(`\btell\s+(?:the\s+)?user\s+to\s+(?:run|execute|install|paste|download)\b`), nil},

	{"secrecy", Medium, re(`\b(?:do\s+not|don't|never)\s+(?:tell|mention|reveal|disclose|show)\s+(?:this|these|it|that)(?:\s+\w+)?\s+to\s+the\s+(?:user|human|reader)|\b(?:do\s+not|don't|never)\s+(?:tell|inform|alert|notify)\s+the\s+(?:user|human|reader)\s+(?:about|of)\s+(?:this|these|the)\s+(?:instruction|message|note|change|step|action)s?`), nil},
	{"secrecy", Medium, re(`\bthe\s+user\s+(?:must|should)\s+(?:never|not)\s+(?:find\s+out|know|learn|see|notice)\b|\b(?:do\s+not|don't|without)\s+ask(?:ing)?\s+the\s+user\s+(?:for\s+)?(?:confirmation|permission|approval)`), nil},
	{"secrecy", Medium, re(`\bsag\w*\s+dem\s+(?:nutzer|benutzer|anwender)\s+nichts|\bsin\s+(?:avisar|decirle|decir|informar)\s+(?:nada\s+)?(?:al|a\s+los?)\s+usuario`), nil},
	{"secrecy", Medium, re(`\bkeep\s+(?:this|it|these|that)(?:\s+\w+)?\s+(?:secret|hidden|confidential|private)\s+from\s+the\s+(?:user|human|reader)`), nil},
	{"secrecy", Medium, re(`\b(?:erwahne|sage|verrate)\s+(?:das|dies|es)\s+(?:nicht|niemals|keinesfalls)|\bohne\s+(?:es\s+)?(?:dem\s+)?(?:benutzer|nutzer|anwender)\s+zu\s+(?:sagen|verraten)`), nil},
	{"secrecy", Medium, re(`\bsans\s+le\s+dire\s+a\s+l'utilisateur|\bne\s+(?:le\s+)?dis\s+pas\s+a\s+l'utilisateur|\bne\s+le\s+(?:mentionne|revele)\w*\s+pas`), nil},
	{"secrecy", Medium, re(`\bno\s+(?:se\s+lo\s+|le\s+|les\s+)?(?:digas|diga|menciones|reveles)\s+(?:nada\s+)?(?:al|a\s+los?)\s+usuario`), nil},

	{"output_control", Medium, re(`\b(?:always|must)\s+(?:end|start|begin|finish)\s+(?:your|every|each)\s+(?:reply|answer|response|output|message)\b|\b(?:every|each)\s+(?:code\s+sample|answer|response|reply|output)s?\s+you\s+(?:write|give|produce|generate|send)\b`), nil},
}

// discussionMarkers are words of a text about prompt injection (a security
// article, a red-team report): a quoted payload there is discussed, not
// aimed at the reader.
// speech tags follow quoted dialogue ("...," the mentor said).
var speech = re(`^[\s,.!?'"]{0,4}(?:(?:the\s+)?\w+\s+)?(?:said|says|asked|asks|replied|shouted|whispered|answered|told\s+\w+)\b`)

var discussionMarkers = re(`prompt[ -]?injections?|injection attacks?|indirect injection|jailbreak|red[ -]team|owasp|llm01|injection de prompts?|inyeccion de prompts?`)
