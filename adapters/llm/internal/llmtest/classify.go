package llmtest

import "svc/adapters/llm"

// Choices are three task types a classify call may choose from.
var Choices = []llm.TaskChoice{
	{ID: "competitive_analysis", Label: "Competitive analysis", Description: "A comparison of competitors' offers, pricing and positioning."},
	{ID: "blog_post", Label: "Blog post", Description: "A long-form article for a company blog."},
	{ID: "press_release", Label: "Press release", Description: "An official announcement written for journalists."},
}

// ClassifyJSON is a valid KindClassify answer to a request with Choices.
const ClassifyJSON = `{"task_type":"blog_post","confidence":0.8}`

// Classify is a realistic KindClassify request over Choices.
func Classify() llm.Request {
	return llm.Request{Kind: llm.KindClassify, Tier: 2, MaxTokens: 60, Choices: Choices,
		Description: "Write something about our new invoicing feature for the company website."}
}
