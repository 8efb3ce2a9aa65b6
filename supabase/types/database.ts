export type Json =
  | string
  | number
  | boolean
  | null
  | { [key: string]: Json | undefined }
  | Json[]

export type Database = {
  public: {
    Tables: {
      agent_chat_conversations: {
        Row: {
          agent_id: string
          created_at: string
          id: string
          title: string | null
          updated_at: string
          user_id: string
          workspace_id: string | null
        }
        Insert: {
          agent_id: string
          created_at?: string
          id?: string
          title?: string | null
          updated_at?: string
          user_id?: string
          workspace_id?: string | null
        }
        Update: {
          agent_id?: string
          created_at?: string
          id?: string
          title?: string | null
          updated_at?: string
          user_id?: string
          workspace_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "agent_chat_conversations_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      agent_chat_costs: {
        Row: {
          agent_id: string
          credits: number
          updated_at: string
        }
        Insert: {
          agent_id: string
          credits: number
          updated_at?: string
        }
        Update: {
          agent_id?: string
          credits?: number
          updated_at?: string
        }
        Relationships: []
      }
      agent_chat_messages: {
        Row: {
          content: string
          conversation_id: string
          created_at: string
          id: string
          metadata: NonNullable<Json>
          role: string
        }
        Insert: {
          content: string
          conversation_id: string
          created_at?: string
          id?: string
          metadata?: NonNullable<Json>
          role: string
        }
        Update: {
          content?: string
          conversation_id?: string
          created_at?: string
          id?: string
          metadata?: NonNullable<Json>
          role?: string
        }
        Relationships: [
          {
            foreignKeyName: "agent_chat_messages_conversation_id_fkey"
            columns: ["conversation_id"]
            isOneToOne: false
            referencedRelation: "agent_chat_conversations"
            referencedColumns: ["id"]
          },
        ]
      }
      agent_run_logs: {
        Row: {
          created_at: string
          data: NonNullable<Json>
          id: number
          level: string
          message: string
          run_id: string
          seq: number
          step: string | null
          workspace_id: string
        }
        Insert: {
          created_at?: string
          data?: NonNullable<Json>
          id?: never
          level?: string
          message: string
          run_id: string
          seq: number
          step?: string | null
          workspace_id: string
        }
        Update: {
          created_at?: string
          data?: NonNullable<Json>
          id?: never
          level?: string
          message?: string
          run_id?: string
          seq?: number
          step?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "agent_run_logs_run_id_fkey"
            columns: ["run_id"]
            isOneToOne: false
            referencedRelation: "agent_runs"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "agent_run_logs_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      agent_runs: {
        Row: {
          agent_id: string
          agent_type: string
          chain_depth: number
          charge_transaction_id: string | null
          completed_at: string | null
          created_at: string
          credits_charged: number
          credits_refunded: boolean
          duration_ms: number | null
          error: string | null
          failed_step: string | null
          heartbeat_at: string | null
          id: string
          input_data: NonNullable<Json>
          output: Json | null
          parent_run_id: string | null
          scheduled_for: string | null
          started_at: string | null
          status: string
          triggered_by: string
          triggered_by_user: string | null
          workspace_id: string
        }
        Insert: {
          agent_id: string
          agent_type: string
          chain_depth?: number
          charge_transaction_id?: string | null
          completed_at?: string | null
          created_at?: string
          credits_charged?: number
          credits_refunded?: boolean
          duration_ms?: number | null
          error?: string | null
          failed_step?: string | null
          heartbeat_at?: string | null
          id?: string
          input_data?: NonNullable<Json>
          output?: Json | null
          parent_run_id?: string | null
          scheduled_for?: string | null
          started_at?: string | null
          status?: string
          triggered_by?: string
          triggered_by_user?: string | null
          workspace_id: string
        }
        Update: {
          agent_id?: string
          agent_type?: string
          chain_depth?: number
          charge_transaction_id?: string | null
          completed_at?: string | null
          created_at?: string
          credits_charged?: number
          credits_refunded?: boolean
          duration_ms?: number | null
          error?: string | null
          failed_step?: string | null
          heartbeat_at?: string | null
          id?: string
          input_data?: NonNullable<Json>
          output?: Json | null
          parent_run_id?: string | null
          scheduled_for?: string | null
          started_at?: string | null
          status?: string
          triggered_by?: string
          triggered_by_user?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "agent_runs_agent_id_workspace_id_fkey"
            columns: ["agent_id", "workspace_id"]
            isOneToOne: false
            referencedRelation: "background_agents"
            referencedColumns: ["id", "workspace_id"]
          },
          {
            foreignKeyName: "agent_runs_parent_run_id_fkey"
            columns: ["parent_run_id"]
            isOneToOne: false
            referencedRelation: "agent_runs"
            referencedColumns: ["id"]
          },
        ]
      }
      agent_tool_call_logs: {
        Row: {
          agent_id: string | null
          conversation_id: string | null
          created_at: string
          duration_ms: number | null
          id: string
          result_summary: NonNullable<Json>
          tool_args: NonNullable<Json>
          tool_name: string
          user_id: string | null
          workspace_id: string
          zero_result: boolean
        }
        Insert: {
          agent_id?: string | null
          conversation_id?: string | null
          created_at?: string
          duration_ms?: number | null
          id?: string
          result_summary?: NonNullable<Json>
          tool_args?: NonNullable<Json>
          tool_name: string
          user_id?: string | null
          workspace_id: string
          zero_result?: boolean
        }
        Update: {
          agent_id?: string | null
          conversation_id?: string | null
          created_at?: string
          duration_ms?: number | null
          id?: string
          result_summary?: NonNullable<Json>
          tool_args?: NonNullable<Json>
          tool_name?: string
          user_id?: string | null
          workspace_id?: string
          zero_result?: boolean
        }
        Relationships: [
          {
            foreignKeyName: "agent_tool_call_logs_conversation_id_fkey"
            columns: ["conversation_id"]
            isOneToOne: false
            referencedRelation: "agent_chat_conversations"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "agent_tool_call_logs_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      ai_job_checkpoints: {
        Row: {
          created_at: string
          job_id: string
          output: NonNullable<Json>
          progress: number
          stage: string
        }
        Insert: {
          created_at?: string
          job_id: string
          output: NonNullable<Json>
          progress: number
          stage: string
        }
        Update: {
          created_at?: string
          job_id?: string
          output?: NonNullable<Json>
          progress?: number
          stage?: string
        }
        Relationships: [
          {
            foreignKeyName: "ai_job_checkpoints_job_id_fkey"
            columns: ["job_id"]
            isOneToOne: false
            referencedRelation: "ai_jobs"
            referencedColumns: ["id"]
          },
        ]
      }
      ai_job_model_calls: {
        Row: {
          created_at: string
          error: string | null
          id: string
          input_tokens: number | null
          job_id: string
          latency_ms: number
          model: string
          ok: boolean
          output_tokens: number | null
          purpose: string
          stage: string
        }
        Insert: {
          created_at?: string
          error?: string | null
          id?: string
          input_tokens?: number | null
          job_id: string
          latency_ms: number
          model: string
          ok: boolean
          output_tokens?: number | null
          purpose: string
          stage: string
        }
        Update: {
          created_at?: string
          error?: string | null
          id?: string
          input_tokens?: number | null
          job_id?: string
          latency_ms?: number
          model?: string
          ok?: boolean
          output_tokens?: number | null
          purpose?: string
          stage?: string
        }
        Relationships: [
          {
            foreignKeyName: "ai_job_model_calls_job_id_fkey"
            columns: ["job_id"]
            isOneToOne: false
            referencedRelation: "ai_jobs"
            referencedColumns: ["id"]
          },
        ]
      }
      ai_jobs: {
        Row: {
          ai_config: Json | null
          attempts: number
          completed_at: string | null
          content_type: string | null
          created_at: string
          credit_transaction_id: string | null
          current_stage: string | null
          document_id: string | null
          error: string | null
          filename: string | null
          heartbeat_at: string | null
          id: string
          job_type: string
          message: string | null
          metadata: NonNullable<Json>
          progress: number
          queued_at: string | null
          size_bytes: number | null
          started_at: string | null
          status: string
          storage_bucket: string | null
          storage_path: string | null
          updated_at: string
          user_id: string
          workspace_id: string | null
        }
        Insert: {
          ai_config?: Json | null
          attempts?: number
          completed_at?: string | null
          content_type?: string | null
          created_at?: string
          credit_transaction_id?: string | null
          current_stage?: string | null
          document_id?: string | null
          error?: string | null
          filename?: string | null
          heartbeat_at?: string | null
          id?: string
          job_type: string
          message?: string | null
          metadata?: NonNullable<Json>
          progress?: number
          queued_at?: string | null
          size_bytes?: number | null
          started_at?: string | null
          status?: string
          storage_bucket?: string | null
          storage_path?: string | null
          updated_at?: string
          user_id?: string
          workspace_id?: string | null
        }
        Update: {
          ai_config?: Json | null
          attempts?: number
          completed_at?: string | null
          content_type?: string | null
          created_at?: string
          credit_transaction_id?: string | null
          current_stage?: string | null
          document_id?: string | null
          error?: string | null
          filename?: string | null
          heartbeat_at?: string | null
          id?: string
          job_type?: string
          message?: string | null
          metadata?: NonNullable<Json>
          progress?: number
          queued_at?: string | null
          size_bytes?: number | null
          started_at?: string | null
          status?: string
          storage_bucket?: string | null
          storage_path?: string | null
          updated_at?: string
          user_id?: string
          workspace_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "ai_jobs_credit_transaction_id_fkey"
            columns: ["credit_transaction_id"]
            isOneToOne: false
            referencedRelation: "credit_transactions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "ai_jobs_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      ai_prompt_history: {
        Row: {
          change_reason: string | null
          created_at: string
          created_by: string | null
          description: string | null
          id: string
          prompt_id: string
          prompt_text: string
          replaced_at: string
          replaced_by: string | null
          version: number
        }
        Insert: {
          change_reason?: string | null
          created_at: string
          created_by?: string | null
          description?: string | null
          id?: string
          prompt_id: string
          prompt_text: string
          replaced_at?: string
          replaced_by?: string | null
          version: number
        }
        Update: {
          change_reason?: string | null
          created_at?: string
          created_by?: string | null
          description?: string | null
          id?: string
          prompt_id?: string
          prompt_text?: string
          replaced_at?: string
          replaced_by?: string | null
          version?: number
        }
        Relationships: [
          {
            foreignKeyName: "ai_prompt_history_prompt_id_fkey"
            columns: ["prompt_id"]
            isOneToOne: false
            referencedRelation: "ai_prompts"
            referencedColumns: ["id"]
          },
        ]
      }
      ai_prompt_tests: {
        Row: {
          category: string | null
          created_at: string
          error: string | null
          id: string
          input: string
          input_tokens: number | null
          latency_ms: number
          model: string
          ok: boolean
          output: string | null
          output_tokens: number | null
          prompt_id: string | null
          prompt_text: string
          prompt_version: number | null
          stage: string | null
          tested_by: string | null
        }
        Insert: {
          category?: string | null
          created_at?: string
          error?: string | null
          id?: string
          input: string
          input_tokens?: number | null
          latency_ms: number
          model: string
          ok: boolean
          output?: string | null
          output_tokens?: number | null
          prompt_id?: string | null
          prompt_text: string
          prompt_version?: number | null
          stage?: string | null
          tested_by?: string | null
        }
        Update: {
          category?: string | null
          created_at?: string
          error?: string | null
          id?: string
          input?: string
          input_tokens?: number | null
          latency_ms?: number
          model?: string
          ok?: boolean
          output?: string | null
          output_tokens?: number | null
          prompt_id?: string | null
          prompt_text?: string
          prompt_version?: number | null
          stage?: string | null
          tested_by?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "ai_prompt_tests_prompt_id_fkey"
            columns: ["prompt_id"]
            isOneToOne: false
            referencedRelation: "ai_prompts"
            referencedColumns: ["id"]
          },
        ]
      }
      ai_prompts: {
        Row: {
          category: string
          change_reason: string | null
          created_at: string
          description: string | null
          id: string
          name: string
          prompt_text: string
          stage: string
          updated_at: string
          updated_by: string | null
          version: number
        }
        Insert: {
          category: string
          change_reason?: string | null
          created_at?: string
          description?: string | null
          id?: string
          name: string
          prompt_text: string
          stage: string
          updated_at?: string
          updated_by?: string | null
          version?: number
        }
        Update: {
          category?: string
          change_reason?: string | null
          created_at?: string
          description?: string | null
          id?: string
          name?: string
          prompt_text?: string
          stage?: string
          updated_at?: string
          updated_by?: string | null
          version?: number
        }
        Relationships: []
      }
      ai_service_calls: {
        Row: {
          action: string
          attempt: number
          cost_usd: number | null
          created_at: string
          error: string | null
          escalated: boolean
          escalation_reason: string | null
          id: string
          input_tokens: number | null
          latency_ms: number
          model: string
          ok: boolean
          output_tokens: number | null
          provider: string | null
          purpose: string
          request_id: string | null
          task_type: string
          user_id: string | null
          workspace_id: string | null
        }
        Insert: {
          action: string
          attempt?: number
          cost_usd?: number | null
          created_at?: string
          error?: string | null
          escalated?: boolean
          escalation_reason?: string | null
          id?: string
          input_tokens?: number | null
          latency_ms: number
          model: string
          ok: boolean
          output_tokens?: number | null
          provider?: string | null
          purpose: string
          request_id?: string | null
          task_type: string
          user_id?: string | null
          workspace_id?: string | null
        }
        Update: {
          action?: string
          attempt?: number
          cost_usd?: number | null
          created_at?: string
          error?: string | null
          escalated?: boolean
          escalation_reason?: string | null
          id?: string
          input_tokens?: number | null
          latency_ms?: number
          model?: string
          ok?: boolean
          output_tokens?: number | null
          provider?: string | null
          purpose?: string
          request_id?: string | null
          task_type?: string
          user_id?: string | null
          workspace_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "ai_service_calls_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      ai_usage_logs: {
        Row: {
          action: string
          billed_cost_usd: number
          created_at: string
          credit_transaction_id: string | null
          credits_debited: number
          id: string
          input_tokens: number
          metadata: NonNullable<Json>
          model: string | null
          output_tokens: number
          raw_cost_usd: number
          user_id: string | null
          workspace_id: string | null
        }
        Insert: {
          action: string
          billed_cost_usd?: number
          created_at?: string
          credit_transaction_id?: string | null
          credits_debited?: number
          id?: string
          input_tokens?: number
          metadata?: NonNullable<Json>
          model?: string | null
          output_tokens?: number
          raw_cost_usd?: number
          user_id?: string | null
          workspace_id?: string | null
        }
        Update: {
          action?: string
          billed_cost_usd?: number
          created_at?: string
          credit_transaction_id?: string | null
          credits_debited?: number
          id?: string
          input_tokens?: number
          metadata?: NonNullable<Json>
          model?: string | null
          output_tokens?: number
          raw_cost_usd?: number
          user_id?: string | null
          workspace_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "ai_usage_logs_credit_transaction_id_fkey"
            columns: ["credit_transaction_id"]
            isOneToOne: false
            referencedRelation: "credit_transactions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "ai_usage_logs_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      background_agents: {
        Row: {
          agent_type: string
          chain_to: string[]
          config: NonNullable<Json>
          created_at: string
          created_by: string | null
          description: string | null
          enabled: boolean
          id: string
          last_run_at: string | null
          name: string
          next_run_at: string | null
          schedule: string | null
          schedule_error: string | null
          timezone: string
          updated_at: string
          workspace_id: string
        }
        Insert: {
          agent_type: string
          chain_to?: string[]
          config?: NonNullable<Json>
          created_at?: string
          created_by?: string | null
          description?: string | null
          enabled?: boolean
          id?: string
          last_run_at?: string | null
          name: string
          next_run_at?: string | null
          schedule?: string | null
          schedule_error?: string | null
          timezone?: string
          updated_at?: string
          workspace_id: string
        }
        Update: {
          agent_type?: string
          chain_to?: string[]
          config?: NonNullable<Json>
          created_at?: string
          created_by?: string | null
          description?: string | null
          enabled?: boolean
          id?: string
          last_run_at?: string | null
          name?: string
          next_run_at?: string | null
          schedule?: string | null
          schedule_error?: string | null
          timezone?: string
          updated_at?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "background_agents_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      competitor_sources: {
        Row: {
          competitor_name: string
          created_at: string
          created_by: string | null
          default_currency: string | null
          id: string
          is_active: boolean
          last_checked_at: string | null
          last_currency: string | null
          last_error: string | null
          last_price: number | null
          last_status: string | null
          name_hint: string | null
          price_selector: string | null
          product_id: string
          sku_hint: string | null
          updated_at: string
          url: string
          workspace_id: string
        }
        Insert: {
          competitor_name: string
          created_at?: string
          created_by?: string | null
          default_currency?: string | null
          id?: string
          is_active?: boolean
          last_checked_at?: string | null
          last_currency?: string | null
          last_error?: string | null
          last_price?: number | null
          last_status?: string | null
          name_hint?: string | null
          price_selector?: string | null
          product_id: string
          sku_hint?: string | null
          updated_at?: string
          url: string
          workspace_id: string
        }
        Update: {
          competitor_name?: string
          created_at?: string
          created_by?: string | null
          default_currency?: string | null
          id?: string
          is_active?: boolean
          last_checked_at?: string | null
          last_currency?: string | null
          last_error?: string | null
          last_price?: number | null
          last_status?: string | null
          name_hint?: string | null
          price_selector?: string | null
          product_id?: string
          sku_hint?: string | null
          updated_at?: string
          url?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "competitor_sources_product_id_fkey"
            columns: ["product_id"]
            isOneToOne: false
            referencedRelation: "products"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "competitor_sources_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      credit_packages: {
        Row: {
          created_at: string
          credits: number
          currency: string
          id: string
          is_active: boolean
          name: string
          price: number
        }
        Insert: {
          created_at?: string
          credits: number
          currency?: string
          id?: string
          is_active?: boolean
          name: string
          price: number
        }
        Update: {
          created_at?: string
          credits?: number
          currency?: string
          id?: string
          is_active?: boolean
          name?: string
          price?: number
        }
        Relationships: []
      }
      credit_transactions: {
        Row: {
          action: string
          amount: number
          balance_after: number
          created_at: string
          id: string
          kind: string
          metadata: NonNullable<Json>
          reference_id: string | null
          refund_of: string | null
          user_id: string
        }
        Insert: {
          action: string
          amount: number
          balance_after: number
          created_at?: string
          id?: string
          kind: string
          metadata?: NonNullable<Json>
          reference_id?: string | null
          refund_of?: string | null
          user_id: string
        }
        Update: {
          action?: string
          amount?: number
          balance_after?: number
          created_at?: string
          id?: string
          kind?: string
          metadata?: NonNullable<Json>
          reference_id?: string | null
          refund_of?: string | null
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "credit_transactions_refund_of_fkey"
            columns: ["refund_of"]
            isOneToOne: true
            referencedRelation: "credit_transactions"
            referencedColumns: ["id"]
          },
        ]
      }
      crm_companies: {
        Row: {
          address: string | null
          annual_revenue: number | null
          city: string | null
          country: string | null
          created_at: string
          created_by: string | null
          description: string | null
          email: string | null
          employee_count: number | null
          facebook: string | null
          id: string
          industry: string | null
          linkedin: string | null
          name: string
          notes: string | null
          phone: string | null
          postal_code: string | null
          state: string | null
          twitter: string | null
          updated_at: string
          website: string | null
        }
        Insert: {
          address?: string | null
          annual_revenue?: number | null
          city?: string | null
          country?: string | null
          created_at?: string
          created_by?: string | null
          description?: string | null
          email?: string | null
          employee_count?: number | null
          facebook?: string | null
          id?: string
          industry?: string | null
          linkedin?: string | null
          name: string
          notes?: string | null
          phone?: string | null
          postal_code?: string | null
          state?: string | null
          twitter?: string | null
          updated_at?: string
          website?: string | null
        }
        Update: {
          address?: string | null
          annual_revenue?: number | null
          city?: string | null
          country?: string | null
          created_at?: string
          created_by?: string | null
          description?: string | null
          email?: string | null
          employee_count?: number | null
          facebook?: string | null
          id?: string
          industry?: string | null
          linkedin?: string | null
          name?: string
          notes?: string | null
          phone?: string | null
          postal_code?: string | null
          state?: string | null
          twitter?: string | null
          updated_at?: string
          website?: string | null
        }
        Relationships: []
      }
      crm_company_contacts: {
        Row: {
          company_id: string
          contact_id: string
          created_at: string
          created_by: string | null
          id: string
          is_primary: boolean
          notes: string | null
          role: string | null
        }
        Insert: {
          company_id: string
          contact_id: string
          created_at?: string
          created_by?: string | null
          id?: string
          is_primary?: boolean
          notes?: string | null
          role?: string | null
        }
        Update: {
          company_id?: string
          contact_id?: string
          created_at?: string
          created_by?: string | null
          id?: string
          is_primary?: boolean
          notes?: string | null
          role?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "crm_company_contacts_company_id_fkey"
            columns: ["company_id"]
            isOneToOne: false
            referencedRelation: "crm_companies"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "crm_company_contacts_contact_id_fkey"
            columns: ["contact_id"]
            isOneToOne: false
            referencedRelation: "crm_contacts"
            referencedColumns: ["id"]
          },
        ]
      }
      crm_contact_relationships: {
        Row: {
          contact_id: string
          created_at: string
          created_by: string | null
          id: string
          notes: string | null
          related_contact_id: string
          relationship_type: string
        }
        Insert: {
          contact_id: string
          created_at?: string
          created_by?: string | null
          id?: string
          notes?: string | null
          related_contact_id: string
          relationship_type: string
        }
        Update: {
          contact_id?: string
          created_at?: string
          created_by?: string | null
          id?: string
          notes?: string | null
          related_contact_id?: string
          relationship_type?: string
        }
        Relationships: [
          {
            foreignKeyName: "crm_contact_relationships_contact_id_fkey"
            columns: ["contact_id"]
            isOneToOne: false
            referencedRelation: "crm_contacts"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "crm_contact_relationships_related_contact_id_fkey"
            columns: ["related_contact_id"]
            isOneToOne: false
            referencedRelation: "crm_contacts"
            referencedColumns: ["id"]
          },
        ]
      }
      crm_contacts: {
        Row: {
          company: string | null
          created_at: string
          created_by: string | null
          email: string | null
          id: string
          name: string
          notes: string | null
          phone: string | null
          updated_at: string
          user_id: string | null
        }
        Insert: {
          company?: string | null
          created_at?: string
          created_by?: string | null
          email?: string | null
          id?: string
          name: string
          notes?: string | null
          phone?: string | null
          updated_at?: string
          user_id?: string | null
        }
        Update: {
          company?: string | null
          created_at?: string
          created_by?: string | null
          email?: string | null
          id?: string
          name?: string
          notes?: string | null
          phone?: string | null
          updated_at?: string
          user_id?: string | null
        }
        Relationships: []
      }
      document_chunks: {
        Row: {
          chunk_index: number
          content: string
          created_at: string
          document_id: string
          embedding: string
          embedding_model: string
          fts: unknown
          id: string
          page_end: number
          page_start: number
          product_id: string | null
        }
        Insert: {
          chunk_index: number
          content: string
          created_at?: string
          document_id: string
          embedding: string
          embedding_model: string
          fts?: never
          id?: string
          page_end: number
          page_start: number
          product_id?: string | null
        }
        Update: {
          chunk_index?: number
          content?: string
          created_at?: string
          document_id?: string
          embedding?: string
          embedding_model?: string
          fts?: never
          id?: string
          page_end?: number
          page_start?: number
          product_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "document_chunks_document_id_fkey"
            columns: ["document_id"]
            isOneToOne: false
            referencedRelation: "pipeline_documents"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "document_chunks_product_id_fkey"
            columns: ["product_id"]
            isOneToOne: false
            referencedRelation: "pipeline_products"
            referencedColumns: ["id"]
          },
        ]
      }
      document_images: {
        Row: {
          category: string | null
          classification: Json | null
          classified_at: string | null
          color_slig_768: string
          confidence: number | null
          created_at: string
          document_id: string
          filename: string
          height: number | null
          id: string
          material_slig_768: string
          ocr_at: string | null
          ocr_model: string | null
          ocr_text: string | null
          page_number: number
          storage_url: string
          style_slig_768: string
          texture_slig_768: string
          visual_slig_768: string
          width: number | null
        }
        Insert: {
          category?: string | null
          classification?: Json | null
          classified_at?: string | null
          color_slig_768: string
          confidence?: number | null
          created_at?: string
          document_id: string
          filename: string
          height?: number | null
          id?: string
          material_slig_768: string
          ocr_at?: string | null
          ocr_model?: string | null
          ocr_text?: string | null
          page_number: number
          storage_url: string
          style_slig_768: string
          texture_slig_768: string
          visual_slig_768: string
          width?: number | null
        }
        Update: {
          category?: string | null
          classification?: Json | null
          classified_at?: string | null
          color_slig_768?: string
          confidence?: number | null
          created_at?: string
          document_id?: string
          filename?: string
          height?: number | null
          id?: string
          material_slig_768?: string
          ocr_at?: string | null
          ocr_model?: string | null
          ocr_text?: string | null
          page_number?: number
          storage_url?: string
          style_slig_768?: string
          texture_slig_768?: string
          visual_slig_768?: string
          width?: number | null
        }
        Relationships: [
          {
            foreignKeyName: "document_images_document_id_fkey"
            columns: ["document_id"]
            isOneToOne: false
            referencedRelation: "pipeline_documents"
            referencedColumns: ["id"]
          },
        ]
      }
      document_relationships: {
        Row: {
          created_at: string
          document_id: string
          id: string
          image_id: string
          kind: string
          similarity: number
          source_id: string
        }
        Insert: {
          created_at?: string
          document_id: string
          id?: string
          image_id: string
          kind: string
          similarity: number
          source_id: string
        }
        Update: {
          created_at?: string
          document_id?: string
          id?: string
          image_id?: string
          kind?: string
          similarity?: number
          source_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "document_relationships_document_id_fkey"
            columns: ["document_id"]
            isOneToOne: false
            referencedRelation: "pipeline_documents"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "document_relationships_image_id_fkey"
            columns: ["image_id"]
            isOneToOne: false
            referencedRelation: "document_images"
            referencedColumns: ["id"]
          },
        ]
      }
      duplicate_detection_cache: {
        Row: {
          confidence_level: string
          created_at: string
          description_similarity: number
          id: string
          is_duplicate: boolean
          metadata_similarity: number
          name_similarity: number
          overall_similarity_score: number
          product_id_1: string
          product_id_2: string
          reviewed_at: string | null
          reviewed_by: string | null
          similarity_breakdown: NonNullable<Json>
          status: string
          updated_at: string
          workspace_id: string
        }
        Insert: {
          confidence_level: string
          created_at?: string
          description_similarity: number
          id?: string
          is_duplicate?: boolean
          metadata_similarity: number
          name_similarity: number
          overall_similarity_score: number
          product_id_1: string
          product_id_2: string
          reviewed_at?: string | null
          reviewed_by?: string | null
          similarity_breakdown?: NonNullable<Json>
          status?: string
          updated_at?: string
          workspace_id: string
        }
        Update: {
          confidence_level?: string
          created_at?: string
          description_similarity?: number
          id?: string
          is_duplicate?: boolean
          metadata_similarity?: number
          name_similarity?: number
          overall_similarity_score?: number
          product_id_1?: string
          product_id_2?: string
          reviewed_at?: string | null
          reviewed_by?: string | null
          similarity_breakdown?: NonNullable<Json>
          status?: string
          updated_at?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "duplicate_detection_cache_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      email_analytics: {
        Row: {
          bounced: number
          clicked: number
          complained: number
          date: string
          delivered: number
          delivery_delayed: number
          failed: number
          id: string
          opened: number
          sent: number
          updated_at: string
          workspace_id: string
        }
        Insert: {
          bounced?: number
          clicked?: number
          complained?: number
          date: string
          delivered?: number
          delivery_delayed?: number
          failed?: number
          id?: string
          opened?: number
          sent?: number
          updated_at?: string
          workspace_id: string
        }
        Update: {
          bounced?: number
          clicked?: number
          complained?: number
          date?: string
          delivered?: number
          delivery_delayed?: number
          failed?: number
          id?: string
          opened?: number
          sent?: number
          updated_at?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "email_analytics_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      email_domains: {
        Row: {
          bounce_rate: number
          complaint_rate: number
          created_at: string
          created_by: string | null
          dns_records: NonNullable<Json>
          domain: string
          id: string
          is_default: boolean
          provider_domain_id: string | null
          reputation_status: string
          updated_at: string
          verification_status: string
          verified_at: string | null
          workspace_id: string
        }
        Insert: {
          bounce_rate?: number
          complaint_rate?: number
          created_at?: string
          created_by?: string | null
          dns_records?: NonNullable<Json>
          domain: string
          id?: string
          is_default?: boolean
          provider_domain_id?: string | null
          reputation_status?: string
          updated_at?: string
          verification_status?: string
          verified_at?: string | null
          workspace_id: string
        }
        Update: {
          bounce_rate?: number
          complaint_rate?: number
          created_at?: string
          created_by?: string | null
          dns_records?: NonNullable<Json>
          domain?: string
          id?: string
          is_default?: boolean
          provider_domain_id?: string | null
          reputation_status?: string
          updated_at?: string
          verification_status?: string
          verified_at?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "email_domains_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      email_logs: {
        Row: {
          bcc: string[]
          bounce_type: string | null
          bounced_at: string | null
          cc: string[]
          click_count: number
          clicked_at: string | null
          complained_at: string | null
          created_at: string
          delayed_at: string | null
          delivered_at: string | null
          domain_id: string | null
          email_type: string
          error_message: string | null
          failed_at: string | null
          from_email: string
          from_name: string | null
          id: string
          open_count: number
          opened_at: string | null
          provider_message_id: string | null
          reply_to: string | null
          sent_at: string | null
          status: string
          subject: string
          tags: NonNullable<Json>
          template_id: string | null
          to_emails: string[]
          updated_at: string
          user_id: string | null
          variables: NonNullable<Json>
          workspace_id: string
        }
        Insert: {
          bcc?: string[]
          bounce_type?: string | null
          bounced_at?: string | null
          cc?: string[]
          click_count?: number
          clicked_at?: string | null
          complained_at?: string | null
          created_at?: string
          delayed_at?: string | null
          delivered_at?: string | null
          domain_id?: string | null
          email_type: string
          error_message?: string | null
          failed_at?: string | null
          from_email: string
          from_name?: string | null
          id?: string
          open_count?: number
          opened_at?: string | null
          provider_message_id?: string | null
          reply_to?: string | null
          sent_at?: string | null
          status?: string
          subject: string
          tags?: NonNullable<Json>
          template_id?: string | null
          to_emails: string[]
          updated_at?: string
          user_id?: string | null
          variables?: NonNullable<Json>
          workspace_id: string
        }
        Update: {
          bcc?: string[]
          bounce_type?: string | null
          bounced_at?: string | null
          cc?: string[]
          click_count?: number
          clicked_at?: string | null
          complained_at?: string | null
          created_at?: string
          delayed_at?: string | null
          delivered_at?: string | null
          domain_id?: string | null
          email_type?: string
          error_message?: string | null
          failed_at?: string | null
          from_email?: string
          from_name?: string | null
          id?: string
          open_count?: number
          opened_at?: string | null
          provider_message_id?: string | null
          reply_to?: string | null
          sent_at?: string | null
          status?: string
          subject?: string
          tags?: NonNullable<Json>
          template_id?: string | null
          to_emails?: string[]
          updated_at?: string
          user_id?: string | null
          variables?: NonNullable<Json>
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "email_logs_domain_id_fkey"
            columns: ["domain_id"]
            isOneToOne: false
            referencedRelation: "email_domains"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "email_logs_template_id_fkey"
            columns: ["template_id"]
            isOneToOne: false
            referencedRelation: "email_templates"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "email_logs_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      email_suppressions: {
        Row: {
          created_at: string
          email: string
          id: string
          reason: string
          source_log_id: string | null
          workspace_id: string
        }
        Insert: {
          created_at?: string
          email: string
          id?: string
          reason: string
          source_log_id?: string | null
          workspace_id: string
        }
        Update: {
          created_at?: string
          email?: string
          id?: string
          reason?: string
          source_log_id?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "email_suppressions_source_log_id_fkey"
            columns: ["source_log_id"]
            isOneToOne: false
            referencedRelation: "email_logs"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "email_suppressions_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      email_templates: {
        Row: {
          created_at: string
          created_by: string | null
          email_type: string
          html_content: string | null
          id: string
          is_active: boolean
          name: string
          slug: string
          subject: string
          text_content: string | null
          updated_at: string
          variables: string[]
          workspace_id: string
        }
        Insert: {
          created_at?: string
          created_by?: string | null
          email_type?: string
          html_content?: string | null
          id?: string
          is_active?: boolean
          name: string
          slug: string
          subject: string
          text_content?: string | null
          updated_at?: string
          variables?: string[]
          workspace_id: string
        }
        Update: {
          created_at?: string
          created_by?: string | null
          email_type?: string
          html_content?: string | null
          id?: string
          is_active?: boolean
          name?: string
          slug?: string
          subject?: string
          text_content?: string | null
          updated_at?: string
          variables?: string[]
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "email_templates_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      email_webhook_events: {
        Row: {
          event_type: string
          outcome: string
          provider_message_id: string | null
          received_at: string
          svix_id: string
        }
        Insert: {
          event_type: string
          outcome: string
          provider_message_id?: string | null
          received_at?: string
          svix_id: string
        }
        Update: {
          event_type?: string
          outcome?: string
          provider_message_id?: string | null
          received_at?: string
          svix_id?: string
        }
        Relationships: []
      }
      flow_runs: {
        Row: {
          completed_at: string | null
          duration_ms: number | null
          error_message: string | null
          error_node_id: string | null
          flow_id: string
          id: string
          initiated_by: string | null
          is_test_run: boolean
          scheduled_for: string | null
          started_at: string
          status: string
          steps: NonNullable<Json>
          trigger_data: NonNullable<Json>
          trigger_type: string
          workspace_id: string
        }
        Insert: {
          completed_at?: string | null
          duration_ms?: number | null
          error_message?: string | null
          error_node_id?: string | null
          flow_id: string
          id?: string
          initiated_by?: string | null
          is_test_run?: boolean
          scheduled_for?: string | null
          started_at?: string
          status?: string
          steps?: NonNullable<Json>
          trigger_data?: NonNullable<Json>
          trigger_type: string
          workspace_id: string
        }
        Update: {
          completed_at?: string | null
          duration_ms?: number | null
          error_message?: string | null
          error_node_id?: string | null
          flow_id?: string
          id?: string
          initiated_by?: string | null
          is_test_run?: boolean
          scheduled_for?: string | null
          started_at?: string
          status?: string
          steps?: NonNullable<Json>
          trigger_data?: NonNullable<Json>
          trigger_type?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "flow_runs_flow_id_fkey"
            columns: ["flow_id"]
            isOneToOne: false
            referencedRelation: "flows"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "flow_runs_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      flow_webhook_deliveries: {
        Row: {
          delivery_id: string
          flow_id: string
          received_at: string
          signed_at: string
        }
        Insert: {
          delivery_id: string
          flow_id: string
          received_at?: string
          signed_at: string
        }
        Update: {
          delivery_id?: string
          flow_id?: string
          received_at?: string
          signed_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "flow_webhook_deliveries_flow_id_fkey"
            columns: ["flow_id"]
            isOneToOne: false
            referencedRelation: "flows"
            referencedColumns: ["id"]
          },
        ]
      }
      flows: {
        Row: {
          created_at: string
          created_by: string | null
          description: string | null
          enabled: boolean
          event_type: string | null
          graph: NonNullable<Json>
          id: string
          last_run_at: string | null
          name: string
          next_run_at: string | null
          trigger_config: NonNullable<Json>
          trigger_type: string
          updated_at: string
          webhook_secret: string | null
          workspace_id: string
        }
        Insert: {
          created_at?: string
          created_by?: string | null
          description?: string | null
          enabled?: boolean
          event_type?: string | null
          graph?: NonNullable<Json>
          id?: string
          last_run_at?: string | null
          name: string
          next_run_at?: string | null
          trigger_config?: NonNullable<Json>
          trigger_type: string
          updated_at?: string
          webhook_secret?: string | null
          workspace_id: string
        }
        Update: {
          created_at?: string
          created_by?: string | null
          description?: string | null
          enabled?: boolean
          event_type?: string | null
          graph?: NonNullable<Json>
          id?: string
          last_run_at?: string | null
          name?: string
          next_run_at?: string | null
          trigger_config?: NonNullable<Json>
          trigger_type?: string
          updated_at?: string
          webhook_secret?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "flows_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      gateway_action_costs: {
        Row: {
          cost_key: string
          credits: number
          description: string
          updated_at: string
        }
        Insert: {
          cost_key: string
          credits: number
          description: string
          updated_at?: string
        }
        Update: {
          cost_key?: string
          credits?: number
          description?: string
          updated_at?: string
        }
        Relationships: []
      }
      image_uploads: {
        Row: {
          analysis: NonNullable<Json>
          confidence: number | null
          created_at: string
          filename: string
          height: number | null
          id: string
          material_type: string | null
          media_type: string
          model: string
          size_bytes: number
          storage_bucket: string
          storage_path: string
          user_id: string
          width: number | null
          workspace_id: string | null
        }
        Insert: {
          analysis: NonNullable<Json>
          confidence?: number | null
          created_at?: string
          filename: string
          height?: number | null
          id: string
          material_type?: string | null
          media_type: string
          model: string
          size_bytes: number
          storage_bucket?: string
          storage_path: string
          user_id: string
          width?: number | null
          workspace_id?: string | null
        }
        Update: {
          analysis?: NonNullable<Json>
          confidence?: number | null
          created_at?: string
          filename?: string
          height?: number | null
          id?: string
          material_type?: string | null
          media_type?: string
          model?: string
          size_bytes?: number
          storage_bucket?: string
          storage_path?: string
          user_id?: string
          width?: number | null
          workspace_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "image_uploads_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      kb_categories: {
        Row: {
          access_level: string
          created_at: string
          created_by: string | null
          description: string | null
          id: string
          name: string
          slug: string
          trigger_keyword: string | null
          updated_at: string
          workspace_id: string
        }
        Insert: {
          access_level?: string
          created_at?: string
          created_by?: string | null
          description?: string | null
          id?: string
          name: string
          slug: string
          trigger_keyword?: string | null
          updated_at?: string
          workspace_id: string
        }
        Update: {
          access_level?: string
          created_at?: string
          created_by?: string | null
          description?: string | null
          id?: string
          name?: string
          slug?: string
          trigger_keyword?: string | null
          updated_at?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "kb_categories_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      kb_doc_attachments: {
        Row: {
          created_at: string
          created_by: string | null
          doc_id: string
          id: string
          notes: string | null
          product_id: string
          relationship_type: string
          workspace_id: string
        }
        Insert: {
          created_at?: string
          created_by?: string | null
          doc_id: string
          id?: string
          notes?: string | null
          product_id: string
          relationship_type?: string
          workspace_id: string
        }
        Update: {
          created_at?: string
          created_by?: string | null
          doc_id?: string
          id?: string
          notes?: string | null
          product_id?: string
          relationship_type?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "kb_doc_attachments_product_id_fkey"
            columns: ["product_id"]
            isOneToOne: false
            referencedRelation: "products"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "kb_doc_attachments_workspace_id_doc_id_fkey"
            columns: ["workspace_id", "doc_id"]
            isOneToOne: false
            referencedRelation: "kb_docs"
            referencedColumns: ["workspace_id", "id"]
          },
        ]
      }
      kb_doc_chunks: {
        Row: {
          category_id: string | null
          char_end: number
          char_start: number
          chunk_index: number
          content: string
          created_at: string
          doc_id: string
          embedding: string
          embedding_sketch: unknown
          fts: unknown
          heading: string | null
          id: string
          price_doc_type: string | null
          status: string
          workspace_id: string
        }
        Insert: {
          category_id?: string | null
          char_end: number
          char_start: number
          chunk_index: number
          content: string
          created_at?: string
          doc_id: string
          embedding: string
          embedding_sketch?: unknown
          fts?: never
          heading?: string | null
          id?: string
          price_doc_type?: string | null
          status: string
          workspace_id: string
        }
        Update: {
          category_id?: string | null
          char_end?: number
          char_start?: number
          chunk_index?: number
          content?: string
          created_at?: string
          doc_id?: string
          embedding?: string
          embedding_sketch?: unknown
          fts?: never
          heading?: string | null
          id?: string
          price_doc_type?: string | null
          status?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "kb_doc_chunks_doc_id_fkey"
            columns: ["doc_id"]
            isOneToOne: false
            referencedRelation: "kb_docs"
            referencedColumns: ["id"]
          },
        ]
      }
      kb_docs: {
        Row: {
          category_id: string | null
          chunk_count: number
          content: string
          content_hash: string
          created_at: string
          created_by: string | null
          embedded_at: string | null
          embedding_model: string | null
          id: string
          metadata: NonNullable<Json>
          price_doc_type: string | null
          source: string
          status: string
          title: string
          updated_at: string
          updated_by: string | null
          workspace_id: string
        }
        Insert: {
          category_id?: string | null
          chunk_count?: number
          content: string
          content_hash: string
          created_at?: string
          created_by?: string | null
          embedded_at?: string | null
          embedding_model?: string | null
          id?: string
          metadata?: NonNullable<Json>
          price_doc_type?: string | null
          source?: string
          status?: string
          title: string
          updated_at?: string
          updated_by?: string | null
          workspace_id: string
        }
        Update: {
          category_id?: string | null
          chunk_count?: number
          content?: string
          content_hash?: string
          created_at?: string
          created_by?: string | null
          embedded_at?: string | null
          embedding_model?: string | null
          id?: string
          metadata?: NonNullable<Json>
          price_doc_type?: string | null
          source?: string
          status?: string
          title?: string
          updated_at?: string
          updated_by?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "kb_docs_workspace_id_category_id_fkey"
            columns: ["workspace_id", "category_id"]
            isOneToOne: false
            referencedRelation: "kb_categories"
            referencedColumns: ["workspace_id", "id"]
          },
          {
            foreignKeyName: "kb_docs_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      material_interactions: {
        Row: {
          created_at: string
          id: string
          interaction_type: string
          interaction_value: number
          material_id: string
          metadata: NonNullable<Json>
          session_id: string | null
          user_id: string
          weight: number | null
          workspace_id: string
        }
        Insert: {
          created_at?: string
          id?: string
          interaction_type: string
          interaction_value?: number
          material_id: string
          metadata?: NonNullable<Json>
          session_id?: string | null
          user_id?: string
          weight?: never
          workspace_id: string
        }
        Update: {
          created_at?: string
          id?: string
          interaction_type?: string
          interaction_value?: number
          material_id?: string
          metadata?: NonNullable<Json>
          session_id?: string | null
          user_id?: string
          weight?: never
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "material_interactions_material_id_fkey"
            columns: ["material_id"]
            isOneToOne: false
            referencedRelation: "products"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "material_interactions_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      material_neighbours: {
        Row: {
          computed_at: string
          expires_at: string
          k: number
          material_id: string
          neighbours: NonNullable<Json>
          workspace_id: string
        }
        Insert: {
          computed_at?: string
          expires_at: string
          k: number
          material_id: string
          neighbours: NonNullable<Json>
          workspace_id: string
        }
        Update: {
          computed_at?: string
          expires_at?: string
          k?: number
          material_id?: string
          neighbours?: NonNullable<Json>
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "material_neighbours_material_id_fkey"
            columns: ["material_id"]
            isOneToOne: false
            referencedRelation: "products"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "material_neighbours_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      material_preferences: {
        Row: {
          interactions: number
          last_interaction_at: string
          material_id: string
          preference: number | null
          purchased: boolean
          user_id: string
          weight_sum: number
          workspace_id: string
        }
        Insert: {
          interactions: number
          last_interaction_at: string
          material_id: string
          preference?: never
          purchased?: boolean
          user_id: string
          weight_sum: number
          workspace_id: string
        }
        Update: {
          interactions?: number
          last_interaction_at?: string
          material_id?: string
          preference?: never
          purchased?: boolean
          user_id?: string
          weight_sum?: number
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "material_preferences_material_id_fkey"
            columns: ["material_id"]
            isOneToOne: false
            referencedRelation: "products"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "material_preferences_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      messaging_bulk_recipients: {
        Row: {
          bulk_id: string
          claimed_at: string | null
          content: string | null
          content_variables: Json | null
          error: string | null
          finished_at: string | null
          id: number
          lease: number | null
          log_id: string | null
          position: number
          provider_message_id: string | null
          status: string
          to_number: string
          variables: NonNullable<Json>
        }
        Insert: {
          bulk_id: string
          claimed_at?: string | null
          content?: string | null
          content_variables?: Json | null
          error?: string | null
          finished_at?: string | null
          id?: never
          lease?: number | null
          log_id?: string | null
          position: number
          provider_message_id?: string | null
          status: string
          to_number: string
          variables?: NonNullable<Json>
        }
        Update: {
          bulk_id?: string
          claimed_at?: string | null
          content?: string | null
          content_variables?: Json | null
          error?: string | null
          finished_at?: string | null
          id?: never
          lease?: number | null
          log_id?: string | null
          position?: number
          provider_message_id?: string | null
          status?: string
          to_number?: string
          variables?: NonNullable<Json>
        }
        Relationships: [
          {
            foreignKeyName: "messaging_bulk_recipients_bulk_id_fkey"
            columns: ["bulk_id"]
            isOneToOne: false
            referencedRelation: "messaging_bulks"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "messaging_bulk_recipients_log_id_fkey"
            columns: ["log_id"]
            isOneToOne: false
            referencedRelation: "messaging_logs"
            referencedColumns: ["id"]
          },
        ]
      }
      messaging_bulks: {
        Row: {
          channel_id: string | null
          channel_type: string
          completed_at: string | null
          content_sid: string | null
          created_at: string
          id: string
          media_url: string[] | null
          message_type: string
          status: string
          tags: NonNullable<Json>
          template_id: string | null
          total: number
          user_id: string | null
          workspace_id: string
        }
        Insert: {
          channel_id?: string | null
          channel_type: string
          completed_at?: string | null
          content_sid?: string | null
          created_at?: string
          id?: string
          media_url?: string[] | null
          message_type: string
          status?: string
          tags?: NonNullable<Json>
          template_id?: string | null
          total: number
          user_id?: string | null
          workspace_id: string
        }
        Update: {
          channel_id?: string | null
          channel_type?: string
          completed_at?: string | null
          content_sid?: string | null
          created_at?: string
          id?: string
          media_url?: string[] | null
          message_type?: string
          status?: string
          tags?: NonNullable<Json>
          template_id?: string | null
          total?: number
          user_id?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "messaging_bulks_channel_id_fkey"
            columns: ["channel_id"]
            isOneToOne: false
            referencedRelation: "messaging_channels"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "messaging_bulks_template_id_fkey"
            columns: ["template_id"]
            isOneToOne: false
            referencedRelation: "messaging_templates"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "messaging_bulks_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      messaging_channels: {
        Row: {
          channel_type: string
          config: NonNullable<Json>
          created_at: string
          daily_quota: number
          display_name: string | null
          id: string
          is_active: boolean
          is_default: boolean
          max_send_rate: number
          provider: string
          sender_id: string
          updated_at: string
          workspace_id: string
        }
        Insert: {
          channel_type: string
          config?: NonNullable<Json>
          created_at?: string
          daily_quota?: number
          display_name?: string | null
          id?: string
          is_active?: boolean
          is_default?: boolean
          max_send_rate?: number
          provider?: string
          sender_id: string
          updated_at?: string
          workspace_id: string
        }
        Update: {
          channel_type?: string
          config?: NonNullable<Json>
          created_at?: string
          daily_quota?: number
          display_name?: string | null
          id?: string
          is_active?: boolean
          is_default?: boolean
          max_send_rate?: number
          provider?: string
          sender_id?: string
          updated_at?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "messaging_channels_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      messaging_logs: {
        Row: {
          bulk_id: string | null
          channel_id: string | null
          channel_type: string
          content: string | null
          cost: number | null
          created_at: string
          currency: string | null
          delivered_at: string | null
          error_code: string | null
          error_message: string | null
          failed_at: string | null
          from_number: string
          id: string
          message_type: string
          provider_message_id: string | null
          read_at: string | null
          segment_count: number | null
          sent_at: string | null
          status: string
          tags: NonNullable<Json>
          template_id: string | null
          to_number: string
          user_id: string | null
          variables: NonNullable<Json>
          workspace_id: string
        }
        Insert: {
          bulk_id?: string | null
          channel_id?: string | null
          channel_type: string
          content?: string | null
          cost?: number | null
          created_at?: string
          currency?: string | null
          delivered_at?: string | null
          error_code?: string | null
          error_message?: string | null
          failed_at?: string | null
          from_number: string
          id?: string
          message_type?: string
          provider_message_id?: string | null
          read_at?: string | null
          segment_count?: number | null
          sent_at?: string | null
          status?: string
          tags?: NonNullable<Json>
          template_id?: string | null
          to_number: string
          user_id?: string | null
          variables?: NonNullable<Json>
          workspace_id: string
        }
        Update: {
          bulk_id?: string | null
          channel_id?: string | null
          channel_type?: string
          content?: string | null
          cost?: number | null
          created_at?: string
          currency?: string | null
          delivered_at?: string | null
          error_code?: string | null
          error_message?: string | null
          failed_at?: string | null
          from_number?: string
          id?: string
          message_type?: string
          provider_message_id?: string | null
          read_at?: string | null
          segment_count?: number | null
          sent_at?: string | null
          status?: string
          tags?: NonNullable<Json>
          template_id?: string | null
          to_number?: string
          user_id?: string | null
          variables?: NonNullable<Json>
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "messaging_logs_channel_id_fkey"
            columns: ["channel_id"]
            isOneToOne: false
            referencedRelation: "messaging_channels"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "messaging_logs_template_id_fkey"
            columns: ["template_id"]
            isOneToOne: false
            referencedRelation: "messaging_templates"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "messaging_logs_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      messaging_optouts: {
        Row: {
          channel_type: string
          id: string
          opted_out_at: string
          phone_number: string
          reason: string | null
          source: string
          workspace_id: string
        }
        Insert: {
          channel_type: string
          id?: string
          opted_out_at?: string
          phone_number: string
          reason?: string | null
          source: string
          workspace_id: string
        }
        Update: {
          channel_type?: string
          id?: string
          opted_out_at?: string
          phone_number?: string
          reason?: string | null
          source?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "messaging_optouts_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      messaging_settings: {
        Row: {
          settings: NonNullable<Json>
          updated_at: string
          workspace_id: string
        }
        Insert: {
          settings?: NonNullable<Json>
          updated_at?: string
          workspace_id: string
        }
        Update: {
          settings?: NonNullable<Json>
          updated_at?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "messaging_settings_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: true
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      messaging_templates: {
        Row: {
          buttons: NonNullable<Json>
          category: string
          channel_type: string
          content: string
          created_at: string
          id: string
          is_active: boolean
          is_approved: boolean
          media_url: string | null
          name: string
          slug: string
          updated_at: string
          variables: string[]
          whatsapp_content_sid: string | null
          workspace_id: string
        }
        Insert: {
          buttons?: NonNullable<Json>
          category?: string
          channel_type: string
          content: string
          created_at?: string
          id?: string
          is_active?: boolean
          is_approved?: boolean
          media_url?: string | null
          name: string
          slug: string
          updated_at?: string
          variables?: string[]
          whatsapp_content_sid?: string | null
          workspace_id: string
        }
        Update: {
          buttons?: NonNullable<Json>
          category?: string
          channel_type?: string
          content?: string
          created_at?: string
          id?: string
          is_active?: boolean
          is_approved?: boolean
          media_url?: string | null
          name?: string
          slug?: string
          updated_at?: string
          variables?: string[]
          whatsapp_content_sid?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "messaging_templates_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      notifications: {
        Row: {
          created_at: string
          data: NonNullable<Json>
          id: string
          message: string | null
          read_at: string | null
          title: string
          type: string
          user_id: string
          workspace_id: string | null
        }
        Insert: {
          created_at?: string
          data?: NonNullable<Json>
          id?: string
          message?: string | null
          read_at?: string | null
          title: string
          type?: string
          user_id: string
          workspace_id?: string | null
        }
        Update: {
          created_at?: string
          data?: NonNullable<Json>
          id?: string
          message?: string | null
          read_at?: string | null
          title?: string
          type?: string
          user_id?: string
          workspace_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "notifications_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      payment_checkouts: {
        Row: {
          amount_cents: number
          completed_at: string | null
          created_at: string
          credit_transaction_id: string | null
          credits: number | null
          currency: string
          id: string
          kind: string
          package_id: string | null
          plan_id: string | null
          provider_session_id: string
          status: string
          user_id: string
        }
        Insert: {
          amount_cents: number
          completed_at?: string | null
          created_at?: string
          credit_transaction_id?: string | null
          credits?: number | null
          currency?: string
          id?: string
          kind: string
          package_id?: string | null
          plan_id?: string | null
          provider_session_id: string
          status?: string
          user_id: string
        }
        Update: {
          amount_cents?: number
          completed_at?: string | null
          created_at?: string
          credit_transaction_id?: string | null
          credits?: number | null
          currency?: string
          id?: string
          kind?: string
          package_id?: string | null
          plan_id?: string | null
          provider_session_id?: string
          status?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "payment_checkouts_credit_transaction_id_fkey"
            columns: ["credit_transaction_id"]
            isOneToOne: false
            referencedRelation: "credit_transactions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "payment_checkouts_package_id_fkey"
            columns: ["package_id"]
            isOneToOne: false
            referencedRelation: "credit_packages"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "payment_checkouts_plan_id_fkey"
            columns: ["plan_id"]
            isOneToOne: false
            referencedRelation: "subscription_plans"
            referencedColumns: ["id"]
          },
        ]
      }
      payment_events: {
        Row: {
          id: string
          outcome: NonNullable<Json>
          received_at: string
          type: string
        }
        Insert: {
          id: string
          outcome?: NonNullable<Json>
          received_at?: string
          type: string
        }
        Update: {
          id?: string
          outcome?: NonNullable<Json>
          received_at?: string
          type?: string
        }
        Relationships: []
      }
      pdf_batch_items: {
        Row: {
          batch_id: string
          completed_at: string | null
          document_id: string
          error: string | null
          extraction_type: string
          id: string
          position: number
          priority: string
          started_at: string | null
          status: string
        }
        Insert: {
          batch_id: string
          completed_at?: string | null
          document_id: string
          error?: string | null
          extraction_type: string
          id?: string
          position: number
          priority: string
          started_at?: string | null
          status?: string
        }
        Update: {
          batch_id?: string
          completed_at?: string | null
          document_id?: string
          error?: string | null
          extraction_type?: string
          id?: string
          position?: number
          priority?: string
          started_at?: string | null
          status?: string
        }
        Relationships: [
          {
            foreignKeyName: "pdf_batch_items_batch_id_fkey"
            columns: ["batch_id"]
            isOneToOne: false
            referencedRelation: "pdf_batches"
            referencedColumns: ["id"]
          },
        ]
      }
      pdf_batches: {
        Row: {
          completed_at: string | null
          created_at: string
          estimated_completion_time: string | null
          failed_documents: number
          id: string
          max_concurrent: number
          max_in_flight: number
          options: NonNullable<Json>
          processed_documents: number
          status: string
          total_documents: number
          user_id: string
          webhook_status: string | null
          webhook_url: string | null
          workspace_id: string | null
        }
        Insert: {
          completed_at?: string | null
          created_at?: string
          estimated_completion_time?: string | null
          failed_documents?: number
          id?: string
          max_concurrent: number
          max_in_flight?: number
          options?: NonNullable<Json>
          processed_documents?: number
          status?: string
          total_documents: number
          user_id: string
          webhook_status?: string | null
          webhook_url?: string | null
          workspace_id?: string | null
        }
        Update: {
          completed_at?: string | null
          created_at?: string
          estimated_completion_time?: string | null
          failed_documents?: number
          id?: string
          max_concurrent?: number
          max_in_flight?: number
          options?: NonNullable<Json>
          processed_documents?: number
          status?: string
          total_documents?: number
          user_id?: string
          webhook_status?: string | null
          webhook_url?: string | null
          workspace_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "pdf_batches_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      pipeline_documents: {
        Row: {
          created_at: string
          filename: string | null
          id: string
          job_id: string
          page_count: number
          user_id: string
          workspace_id: string | null
        }
        Insert: {
          created_at?: string
          filename?: string | null
          id: string
          job_id: string
          page_count: number
          user_id: string
          workspace_id?: string | null
        }
        Update: {
          created_at?: string
          filename?: string | null
          id?: string
          job_id?: string
          page_count?: number
          user_id?: string
          workspace_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "pipeline_documents_job_id_fkey"
            columns: ["job_id"]
            isOneToOne: true
            referencedRelation: "ai_jobs"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "pipeline_documents_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      pipeline_products: {
        Row: {
          created_at: string
          document_id: string
          id: string
          metadata: NonNullable<Json>
          name: string
          page_end: number
          page_start: number
        }
        Insert: {
          created_at?: string
          document_id: string
          id?: string
          metadata?: NonNullable<Json>
          name: string
          page_end: number
          page_start: number
        }
        Update: {
          created_at?: string
          document_id?: string
          id?: string
          metadata?: NonNullable<Json>
          name?: string
          page_end?: number
          page_start?: number
        }
        Relationships: [
          {
            foreignKeyName: "pipeline_products_document_id_fkey"
            columns: ["document_id"]
            isOneToOne: false
            referencedRelation: "pipeline_documents"
            referencedColumns: ["id"]
          },
        ]
      }
      price_entries: {
        Row: {
          content_hash: string
          entries: NonNullable<Json>
          entry_count: number | null
          id: string
          issues: NonNullable<Json>
          kb_doc_id: string
          parsed_at: string
          parser_version: string
          price_doc_type: string
          workspace_id: string
        }
        Insert: {
          content_hash: string
          entries: NonNullable<Json>
          entry_count?: never
          id?: string
          issues?: NonNullable<Json>
          kb_doc_id: string
          parsed_at?: string
          parser_version: string
          price_doc_type: string
          workspace_id: string
        }
        Update: {
          content_hash?: string
          entries?: NonNullable<Json>
          entry_count?: never
          id?: string
          issues?: NonNullable<Json>
          kb_doc_id?: string
          parsed_at?: string
          parser_version?: string
          price_doc_type?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "price_entries_workspace_id_kb_doc_id_fkey"
            columns: ["workspace_id", "kb_doc_id"]
            isOneToOne: false
            referencedRelation: "kb_docs"
            referencedColumns: ["workspace_id", "id"]
          },
        ]
      }
      price_history: {
        Row: {
          change_percent: number | null
          checked_at: string
          competitor_name: string
          currency: string | null
          id: string
          job_id: string | null
          previous_price: number | null
          price: number
          price_change: number | null
          product_id: string
          source_id: string | null
          url: string
          workspace_id: string
        }
        Insert: {
          change_percent?: number | null
          checked_at?: string
          competitor_name: string
          currency?: string | null
          id?: string
          job_id?: string | null
          previous_price?: number | null
          price: number
          price_change?: number | null
          product_id: string
          source_id?: string | null
          url: string
          workspace_id: string
        }
        Update: {
          change_percent?: number | null
          checked_at?: string
          competitor_name?: string
          currency?: string | null
          id?: string
          job_id?: string | null
          previous_price?: number | null
          price?: number
          price_change?: number | null
          product_id?: string
          source_id?: string | null
          url?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "price_history_job_id_fkey"
            columns: ["job_id"]
            isOneToOne: false
            referencedRelation: "price_monitoring_jobs"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "price_history_product_id_fkey"
            columns: ["product_id"]
            isOneToOne: false
            referencedRelation: "products"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "price_history_source_id_fkey"
            columns: ["source_id"]
            isOneToOne: false
            referencedRelation: "competitor_sources"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "price_history_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      price_index_versions: {
        Row: {
          changed_at: string
          version: number
          workspace_id: string
        }
        Insert: {
          changed_at?: string
          version?: number
          workspace_id: string
        }
        Update: {
          changed_at?: string
          version?: number
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "price_index_versions_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: true
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      price_monitoring_jobs: {
        Row: {
          completed_at: string | null
          credit_transaction_ids: string[]
          credits_consumed: number
          credits_refunded: number
          error_message: string | null
          id: string
          price_changes: number
          prices_found: number
          product_id: string
          requested_by: string | null
          results: NonNullable<Json>
          sources_checked: number
          started_at: string
          status: string
          trigger: string
          workspace_id: string
        }
        Insert: {
          completed_at?: string | null
          credit_transaction_ids?: string[]
          credits_consumed?: number
          credits_refunded?: number
          error_message?: string | null
          id?: string
          price_changes?: number
          prices_found?: number
          product_id: string
          requested_by?: string | null
          results?: NonNullable<Json>
          sources_checked?: number
          started_at?: string
          status?: string
          trigger: string
          workspace_id: string
        }
        Update: {
          completed_at?: string | null
          credit_transaction_ids?: string[]
          credits_consumed?: number
          credits_refunded?: number
          error_message?: string | null
          id?: string
          price_changes?: number
          prices_found?: number
          product_id?: string
          requested_by?: string | null
          results?: NonNullable<Json>
          sources_checked?: number
          started_at?: string
          status?: string
          trigger?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "price_monitoring_jobs_product_id_fkey"
            columns: ["product_id"]
            isOneToOne: false
            referencedRelation: "products"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "price_monitoring_jobs_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      price_monitoring_products: {
        Row: {
          created_at: string
          enabled: boolean
          frequency: string
          id: string
          last_checked_at: string | null
          next_check_at: string | null
          product_id: string
          started_by: string | null
          updated_at: string
          workspace_id: string
        }
        Insert: {
          created_at?: string
          enabled?: boolean
          frequency?: string
          id?: string
          last_checked_at?: string | null
          next_check_at?: string | null
          product_id: string
          started_by?: string | null
          updated_at?: string
          workspace_id: string
        }
        Update: {
          created_at?: string
          enabled?: boolean
          frequency?: string
          id?: string
          last_checked_at?: string | null
          next_check_at?: string | null
          product_id?: string
          started_by?: string | null
          updated_at?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "price_monitoring_products_product_id_fkey"
            columns: ["product_id"]
            isOneToOne: true
            referencedRelation: "products"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "price_monitoring_products_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      product_embeddings: {
        Row: {
          content_hash: string
          embedded_at: string
          embedding: string
          embedding_model: string
          product_id: string
          workspace_id: string
        }
        Insert: {
          content_hash: string
          embedded_at?: string
          embedding: string
          embedding_model: string
          product_id: string
          workspace_id: string
        }
        Update: {
          content_hash?: string
          embedded_at?: string
          embedding?: string
          embedding_model?: string
          product_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "product_embeddings_product_id_fkey"
            columns: ["product_id"]
            isOneToOne: true
            referencedRelation: "products"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "product_embeddings_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      product_merge_history: {
        Row: {
          id: string
          is_undone: boolean
          merge_reason: string | null
          merge_strategy: string
          merged_at: string
          merged_by: string | null
          moved_relationships: NonNullable<Json>
          removed_rows: NonNullable<Json>
          similarity_score: number | null
          source_product_ids: string[]
          source_product_names: string[]
          source_products_snapshot: NonNullable<Json>
          target_product_after_merge: NonNullable<Json>
          target_product_before_merge: NonNullable<Json>
          target_product_id: string
          target_product_name: string
          undone_at: string | null
          undone_by: string | null
          workspace_id: string
        }
        Insert: {
          id?: string
          is_undone?: boolean
          merge_reason?: string | null
          merge_strategy?: string
          merged_at?: string
          merged_by?: string | null
          moved_relationships?: NonNullable<Json>
          removed_rows?: NonNullable<Json>
          similarity_score?: number | null
          source_product_ids: string[]
          source_product_names: string[]
          source_products_snapshot: NonNullable<Json>
          target_product_after_merge: NonNullable<Json>
          target_product_before_merge: NonNullable<Json>
          target_product_id: string
          target_product_name: string
          undone_at?: string | null
          undone_by?: string | null
          workspace_id: string
        }
        Update: {
          id?: string
          is_undone?: boolean
          merge_reason?: string | null
          merge_strategy?: string
          merged_at?: string
          merged_by?: string | null
          moved_relationships?: NonNullable<Json>
          removed_rows?: NonNullable<Json>
          similarity_score?: number | null
          source_product_ids?: string[]
          source_product_names?: string[]
          source_products_snapshot?: NonNullable<Json>
          target_product_after_merge?: NonNullable<Json>
          target_product_before_merge?: NonNullable<Json>
          target_product_id?: string
          target_product_name?: string
          undone_at?: string | null
          undone_by?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "product_merge_history_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      product_prices: {
        Row: {
          confirmed_at: string
          confirmed_by: string | null
          created_at: string
          currency: string
          discount_percent: number | null
          discount_price: number | null
          id: string
          list_price: number | null
          notes: string | null
          price_lookup_call_id: string | null
          product_id: string
          source_kb_doc_ids: string[]
          source_snippet: string | null
          unit: string | null
          updated_at: string
          workspace_id: string
        }
        Insert: {
          confirmed_at?: string
          confirmed_by?: string | null
          created_at?: string
          currency?: string
          discount_percent?: number | null
          discount_price?: number | null
          id?: string
          list_price?: number | null
          notes?: string | null
          price_lookup_call_id?: string | null
          product_id: string
          source_kb_doc_ids?: string[]
          source_snippet?: string | null
          unit?: string | null
          updated_at?: string
          workspace_id: string
        }
        Update: {
          confirmed_at?: string
          confirmed_by?: string | null
          created_at?: string
          currency?: string
          discount_percent?: number | null
          discount_price?: number | null
          id?: string
          list_price?: number | null
          notes?: string | null
          price_lookup_call_id?: string | null
          product_id?: string
          source_kb_doc_ids?: string[]
          source_snippet?: string | null
          unit?: string | null
          updated_at?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "product_prices_price_lookup_call_id_workspace_id_fkey"
            columns: ["price_lookup_call_id", "workspace_id"]
            isOneToOne: false
            referencedRelation: "agent_tool_call_logs"
            referencedColumns: ["id", "workspace_id"]
          },
          {
            foreignKeyName: "product_prices_product_id_workspace_id_fkey"
            columns: ["product_id", "workspace_id"]
            isOneToOne: false
            referencedRelation: "products"
            referencedColumns: ["id", "workspace_id"]
          },
        ]
      }
      products: {
        Row: {
          category: string | null
          created_at: string
          created_by: string | null
          description: string | null
          id: string
          metadata: NonNullable<Json>
          name: string
          sku: string | null
          status: string
          updated_at: string
          workspace_id: string
        }
        Insert: {
          category?: string | null
          created_at?: string
          created_by?: string | null
          description?: string | null
          id?: string
          metadata?: NonNullable<Json>
          name: string
          sku?: string | null
          status?: string
          updated_at?: string
          workspace_id: string
        }
        Update: {
          category?: string | null
          created_at?: string
          created_by?: string | null
          description?: string | null
          id?: string
          metadata?: NonNullable<Json>
          name?: string
          sku?: string | null
          status?: string
          updated_at?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "products_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      proposals: {
        Row: {
          amount: number | null
          created_at: string
          created_by: string | null
          currency: string
          id: string
          message: string | null
          quote_request_id: string
          responded_at: string | null
          status: string
          updated_at: string
          valid_until: string | null
          workspace_id: string
        }
        Insert: {
          amount?: number | null
          created_at?: string
          created_by?: string | null
          currency?: string
          id?: string
          message?: string | null
          quote_request_id: string
          responded_at?: string | null
          status?: string
          updated_at?: string
          valid_until?: string | null
          workspace_id: string
        }
        Update: {
          amount?: number | null
          created_at?: string
          created_by?: string | null
          currency?: string
          id?: string
          message?: string | null
          quote_request_id?: string
          responded_at?: string | null
          status?: string
          updated_at?: string
          valid_until?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "proposals_quote_request_id_workspace_id_fkey"
            columns: ["quote_request_id", "workspace_id"]
            isOneToOne: false
            referencedRelation: "quote_requests"
            referencedColumns: ["id", "workspace_id"]
          },
        ]
      }
      quote_items: {
        Row: {
          created_at: string
          description: string | null
          discounted_price: number | null
          id: string
          notes: string | null
          position: number
          price_lookup_call_id: string | null
          price_source: string | null
          product_id: string | null
          quantity: number
          quote_id: string
          unit: string | null
          unit_price: number | null
          updated_at: string
          workspace_id: string
        }
        Insert: {
          created_at?: string
          description?: string | null
          discounted_price?: number | null
          id?: string
          notes?: string | null
          position?: number
          price_lookup_call_id?: string | null
          price_source?: string | null
          product_id?: string | null
          quantity?: number
          quote_id: string
          unit?: string | null
          unit_price?: number | null
          updated_at?: string
          workspace_id: string
        }
        Update: {
          created_at?: string
          description?: string | null
          discounted_price?: number | null
          id?: string
          notes?: string | null
          position?: number
          price_lookup_call_id?: string | null
          price_source?: string | null
          product_id?: string | null
          quantity?: number
          quote_id?: string
          unit?: string | null
          unit_price?: number | null
          updated_at?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "quote_items_price_lookup_call_fk"
            columns: ["price_lookup_call_id", "workspace_id"]
            isOneToOne: false
            referencedRelation: "agent_tool_call_logs"
            referencedColumns: ["id", "workspace_id"]
          },
          {
            foreignKeyName: "quote_items_product_id_workspace_id_fkey"
            columns: ["product_id", "workspace_id"]
            isOneToOne: false
            referencedRelation: "products"
            referencedColumns: ["id", "workspace_id"]
          },
          {
            foreignKeyName: "quote_items_quote_id_workspace_id_fkey"
            columns: ["quote_id", "workspace_id"]
            isOneToOne: false
            referencedRelation: "quote_totals"
            referencedColumns: ["quote_id", "workspace_id"]
          },
          {
            foreignKeyName: "quote_items_quote_id_workspace_id_fkey"
            columns: ["quote_id", "workspace_id"]
            isOneToOne: false
            referencedRelation: "quotes"
            referencedColumns: ["id", "workspace_id"]
          },
        ]
      }
      quote_requests: {
        Row: {
          created_at: string
          id: string
          notes: string | null
          quote_id: string
          status: string
          updated_at: string
          user_id: string
          workspace_id: string
        }
        Insert: {
          created_at?: string
          id?: string
          notes?: string | null
          quote_id: string
          status?: string
          updated_at?: string
          user_id?: string
          workspace_id: string
        }
        Update: {
          created_at?: string
          id?: string
          notes?: string | null
          quote_id?: string
          status?: string
          updated_at?: string
          user_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "quote_requests_quote_id_workspace_id_fkey"
            columns: ["quote_id", "workspace_id"]
            isOneToOne: false
            referencedRelation: "quote_totals"
            referencedColumns: ["quote_id", "workspace_id"]
          },
          {
            foreignKeyName: "quote_requests_quote_id_workspace_id_fkey"
            columns: ["quote_id", "workspace_id"]
            isOneToOne: false
            referencedRelation: "quotes"
            referencedColumns: ["id", "workspace_id"]
          },
        ]
      }
      quotes: {
        Row: {
          created_at: string
          created_by: string | null
          currency: string
          customer_address: string | null
          customer_company: string | null
          customer_email: string | null
          customer_name: string | null
          id: string
          notes: string | null
          pdf_fingerprint: string | null
          pdf_generated_at: string | null
          pdf_storage_path: string | null
          quote_number: string
          status: string
          title: string | null
          updated_at: string
          valid_until: string | null
          workspace_id: string
        }
        Insert: {
          created_at?: string
          created_by?: string | null
          currency?: string
          customer_address?: string | null
          customer_company?: string | null
          customer_email?: string | null
          customer_name?: string | null
          id?: string
          notes?: string | null
          pdf_fingerprint?: string | null
          pdf_generated_at?: string | null
          pdf_storage_path?: string | null
          quote_number?: string
          status?: string
          title?: string | null
          updated_at?: string
          valid_until?: string | null
          workspace_id: string
        }
        Update: {
          created_at?: string
          created_by?: string | null
          currency?: string
          customer_address?: string | null
          customer_company?: string | null
          customer_email?: string | null
          customer_name?: string | null
          id?: string
          notes?: string | null
          pdf_fingerprint?: string | null
          pdf_generated_at?: string | null
          pdf_storage_path?: string | null
          quote_number?: string
          status?: string
          title?: string | null
          updated_at?: string
          valid_until?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "quotes_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      rate_limit_windows: {
        Row: {
          hits: number
          key: string
          scope: string
          window_start: string
        }
        Insert: {
          hits?: number
          key: string
          scope: string
          window_start: string
        }
        Update: {
          hits?: number
          key?: string
          scope?: string
          window_start?: string
        }
        Relationships: []
      }
      recommendation_cache: {
        Row: {
          cache_key: string
          created_at: string
          expires_at: string
          id: string
          kind: string
          material_id: string | null
          results: NonNullable<Json>
          user_id: string
          workspace_id: string
        }
        Insert: {
          cache_key: string
          created_at?: string
          expires_at: string
          id?: string
          kind: string
          material_id?: string | null
          results: NonNullable<Json>
          user_id: string
          workspace_id: string
        }
        Update: {
          cache_key?: string
          created_at?: string
          expires_at?: string
          id?: string
          kind?: string
          material_id?: string | null
          results?: NonNullable<Json>
          user_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "recommendation_cache_material_id_fkey"
            columns: ["material_id"]
            isOneToOne: false
            referencedRelation: "products"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "recommendation_cache_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      recommendation_material_stats: {
        Row: {
          mass: number
          material_id: string
          norm: number
          users: number
          workspace_id: string
        }
        Insert: {
          mass: number
          material_id: string
          norm: number
          users: number
          workspace_id: string
        }
        Update: {
          mass?: number
          material_id?: string
          norm?: number
          users?: number
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "recommendation_material_stats_material_id_fkey"
            columns: ["material_id"]
            isOneToOne: false
            referencedRelation: "products"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "recommendation_material_stats_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      recommendation_user_norms: {
        Row: {
          norm: number
          user_id: string
          workspace_id: string
        }
        Insert: {
          norm: number
          user_id: string
          workspace_id: string
        }
        Update: {
          norm?: number
          user_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "recommendation_user_norms_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      roles: {
        Row: {
          created_at: string
          description: string | null
          id: string
          level: number
          name: string
        }
        Insert: {
          created_at?: string
          description?: string | null
          id?: string
          level: number
          name: string
        }
        Update: {
          created_at?: string
          description?: string | null
          id?: string
          level?: number
          name?: string
        }
        Relationships: []
      }
      scraped_materials_temp: {
        Row: {
          brand: string | null
          created_at: string
          currency: string | null
          data: NonNullable<Json>
          description: string | null
          error: string | null
          id: string
          import_attempts: number
          name: string
          page_id: string | null
          price: number | null
          product_id: string | null
          session_id: string
          sku: string | null
          source: string
          source_url: string | null
          status: string
          updated_at: string
          workspace_id: string
        }
        Insert: {
          brand?: string | null
          created_at?: string
          currency?: string | null
          data?: NonNullable<Json>
          description?: string | null
          error?: string | null
          id?: string
          import_attempts?: number
          name: string
          page_id?: string | null
          price?: number | null
          product_id?: string | null
          session_id: string
          sku?: string | null
          source: string
          source_url?: string | null
          status?: string
          updated_at?: string
          workspace_id: string
        }
        Update: {
          brand?: string | null
          created_at?: string
          currency?: string | null
          data?: NonNullable<Json>
          description?: string | null
          error?: string | null
          id?: string
          import_attempts?: number
          name?: string
          page_id?: string | null
          price?: number | null
          product_id?: string | null
          session_id?: string
          sku?: string | null
          source?: string
          source_url?: string | null
          status?: string
          updated_at?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "scraped_materials_temp_page_id_fkey"
            columns: ["page_id"]
            isOneToOne: false
            referencedRelation: "scraping_pages"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "scraped_materials_temp_product_id_fkey"
            columns: ["product_id"]
            isOneToOne: false
            referencedRelation: "products"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "scraped_materials_temp_session_id_fkey"
            columns: ["session_id"]
            isOneToOne: false
            referencedRelation: "scraping_sessions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "scraped_materials_temp_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      scraping_field_templates: {
        Row: {
          created_at: string
          created_by: string | null
          description: string | null
          fields: NonNullable<Json>
          id: string
          name: string
          prompt: string | null
          system_prompt: string | null
          updated_at: string
          workspace_id: string
        }
        Insert: {
          created_at?: string
          created_by?: string | null
          description?: string | null
          fields?: NonNullable<Json>
          id?: string
          name: string
          prompt?: string | null
          system_prompt?: string | null
          updated_at?: string
          workspace_id: string
        }
        Update: {
          created_at?: string
          created_by?: string | null
          description?: string | null
          fields?: NonNullable<Json>
          id?: string
          name?: string
          prompt?: string | null
          system_prompt?: string | null
          updated_at?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "scraping_field_templates_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      scraping_pages: {
        Row: {
          attempts: number
          claimed_at: string | null
          claimed_by: string | null
          completed_at: string | null
          created_at: string
          error: string | null
          extraction_method: string | null
          http_status: number | null
          id: string
          materials_found: number
          position: number
          processing_time_ms: number | null
          session_id: string
          status: string
          url: string
          workspace_id: string
        }
        Insert: {
          attempts?: number
          claimed_at?: string | null
          claimed_by?: string | null
          completed_at?: string | null
          created_at?: string
          error?: string | null
          extraction_method?: string | null
          http_status?: number | null
          id?: string
          materials_found?: number
          position?: number
          processing_time_ms?: number | null
          session_id: string
          status?: string
          url: string
          workspace_id: string
        }
        Update: {
          attempts?: number
          claimed_at?: string | null
          claimed_by?: string | null
          completed_at?: string | null
          created_at?: string
          error?: string | null
          extraction_method?: string | null
          http_status?: number | null
          id?: string
          materials_found?: number
          position?: number
          processing_time_ms?: number | null
          session_id?: string
          status?: string
          url?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "scraping_pages_session_id_fkey"
            columns: ["session_id"]
            isOneToOne: false
            referencedRelation: "scraping_sessions"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "scraping_pages_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      scraping_session_payers: {
        Row: {
          session_id: string
          updated_at: string
          user_id: string
        }
        Insert: {
          session_id: string
          updated_at?: string
          user_id: string
        }
        Update: {
          session_id?: string
          updated_at?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "scraping_session_payers_session_id_fkey"
            columns: ["session_id"]
            isOneToOne: true
            referencedRelation: "scraping_sessions"
            referencedColumns: ["id"]
          },
        ]
      }
      scraping_sessions: {
        Row: {
          category: string | null
          completed_at: string | null
          created_at: string
          created_by: string | null
          error: string | null
          failed_pages: number
          heartbeat_at: string | null
          id: string
          materials_found: number
          name: string
          options: NonNullable<Json>
          paused_at: string | null
          processed_pages: number
          products_created: number
          source_url: string | null
          started_at: string | null
          status: string
          total_pages: number
          updated_at: string
          worker_id: string | null
          workspace_id: string
        }
        Insert: {
          category?: string | null
          completed_at?: string | null
          created_at?: string
          created_by?: string | null
          error?: string | null
          failed_pages?: number
          heartbeat_at?: string | null
          id?: string
          materials_found?: number
          name?: string
          options?: NonNullable<Json>
          paused_at?: string | null
          processed_pages?: number
          products_created?: number
          source_url?: string | null
          started_at?: string | null
          status?: string
          total_pages?: number
          updated_at?: string
          worker_id?: string | null
          workspace_id: string
        }
        Update: {
          category?: string | null
          completed_at?: string | null
          created_at?: string
          created_by?: string | null
          error?: string | null
          failed_pages?: number
          heartbeat_at?: string | null
          id?: string
          materials_found?: number
          name?: string
          options?: NonNullable<Json>
          paused_at?: string | null
          processed_pages?: number
          products_created?: number
          source_url?: string | null
          started_at?: string | null
          status?: string
          total_pages?: number
          updated_at?: string
          worker_id?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "scraping_sessions_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      search_queries: {
        Row: {
          created_at: string
          id: string
          normalized_query: string | null
          query: string
          results_count: number | null
          source: string
          user_id: string | null
          workspace_id: string
        }
        Insert: {
          created_at?: string
          id?: string
          normalized_query?: never
          query: string
          results_count?: number | null
          source?: string
          user_id?: string | null
          workspace_id: string
        }
        Update: {
          created_at?: string
          id?: string
          normalized_query?: never
          query?: string
          results_count?: number | null
          source?: string
          user_id?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "search_queries_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      search_query_stats: {
        Row: {
          last_searched_at: string
          normalized_query: string
          searches: number
          workspace_id: string
        }
        Insert: {
          last_searched_at: string
          normalized_query: string
          searches?: number
          workspace_id: string
        }
        Update: {
          last_searched_at?: string
          normalized_query?: string
          searches?: number
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "search_query_stats_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      search_suggestion_clicks: {
        Row: {
          created_at: string
          id: string
          position: number | null
          product_id: string | null
          query: string
          suggestion: string
          suggestion_type: string
          user_id: string | null
          workspace_id: string
        }
        Insert: {
          created_at?: string
          id?: string
          position?: number | null
          product_id?: string | null
          query: string
          suggestion: string
          suggestion_type: string
          user_id?: string | null
          workspace_id: string
        }
        Update: {
          created_at?: string
          id?: string
          position?: number | null
          product_id?: string | null
          query?: string
          suggestion?: string
          suggestion_type?: string
          user_id?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "search_suggestion_clicks_product_id_fkey"
            columns: ["product_id"]
            isOneToOne: false
            referencedRelation: "products"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "search_suggestion_clicks_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      search_synonyms: {
        Row: {
          created_at: string
          id: string
          related_terms: string[]
          synonyms: string[]
          term: string
          workspace_id: string | null
        }
        Insert: {
          created_at?: string
          id?: string
          related_terms?: string[]
          synonyms?: string[]
          term: string
          workspace_id?: string | null
        }
        Update: {
          created_at?: string
          id?: string
          related_terms?: string[]
          synonyms?: string[]
          term?: string
          workspace_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "search_synonyms_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      search_terms: {
        Row: {
          product_count: number
          term: string
          workspace_id: string
        }
        Insert: {
          product_count?: number
          term: string
          workspace_id: string
        }
        Update: {
          product_count?: number
          term?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "search_terms_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      seo_articles: {
        Row: {
          additional_instructions: string | null
          analysis: Json | null
          attempts: number
          auto_fix: boolean
          avg_competitor_score: number | null
          completed_at: string | null
          content_brief: NonNullable<Json>
          content_html: string | null
          content_markdown: string | null
          content_score: number | null
          created_at: string
          current_stage: string
          draft: Json | null
          error: string | null
          error_stage: string | null
          faq_schema: Json | null
          fix_iterations: number
          heartbeat_at: string | null
          id: string
          language_code: string
          location_code: number
          max_fix_iterations: number
          meta_description: string | null
          meta_title: string | null
          plan: Json | null
          progress_percentage: number
          research: Json | null
          schema_markup: Json | null
          skip_research: boolean
          slug: string | null
          status: string
          target_keyword: string
          title: string | null
          topic: string
          updated_at: string
          user_id: string
          word_count: number | null
          worker_id: string | null
          workspace_id: string | null
        }
        Insert: {
          additional_instructions?: string | null
          analysis?: Json | null
          attempts?: number
          auto_fix?: boolean
          avg_competitor_score?: number | null
          completed_at?: string | null
          content_brief?: NonNullable<Json>
          content_html?: string | null
          content_markdown?: string | null
          content_score?: number | null
          created_at?: string
          current_stage?: string
          draft?: Json | null
          error?: string | null
          error_stage?: string | null
          faq_schema?: Json | null
          fix_iterations?: number
          heartbeat_at?: string | null
          id?: string
          language_code?: string
          location_code?: number
          max_fix_iterations?: number
          meta_description?: string | null
          meta_title?: string | null
          plan?: Json | null
          progress_percentage?: number
          research?: Json | null
          schema_markup?: Json | null
          skip_research?: boolean
          slug?: string | null
          status?: string
          target_keyword: string
          title?: string | null
          topic: string
          updated_at?: string
          user_id: string
          word_count?: number | null
          worker_id?: string | null
          workspace_id?: string | null
        }
        Update: {
          additional_instructions?: string | null
          analysis?: Json | null
          attempts?: number
          auto_fix?: boolean
          avg_competitor_score?: number | null
          completed_at?: string | null
          content_brief?: NonNullable<Json>
          content_html?: string | null
          content_markdown?: string | null
          content_score?: number | null
          created_at?: string
          current_stage?: string
          draft?: Json | null
          error?: string | null
          error_stage?: string | null
          faq_schema?: Json | null
          fix_iterations?: number
          heartbeat_at?: string | null
          id?: string
          language_code?: string
          location_code?: number
          max_fix_iterations?: number
          meta_description?: string | null
          meta_title?: string | null
          plan?: Json | null
          progress_percentage?: number
          research?: Json | null
          schema_markup?: Json | null
          skip_research?: boolean
          slug?: string | null
          status?: string
          target_keyword?: string
          title?: string | null
          topic?: string
          updated_at?: string
          user_id?: string
          word_count?: number | null
          worker_id?: string | null
          workspace_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "seo_articles_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      social_account_insights: {
        Row: {
          date: string
          fetched_at: string
          followers_count: number | null
          id: string
          impressions: number
          period_end: string
          period_start: string
          reach: number
          social_account_id: string
          workspace_id: string
        }
        Insert: {
          date: string
          fetched_at?: string
          followers_count?: number | null
          id?: string
          impressions?: number
          period_end: string
          period_start: string
          reach?: number
          social_account_id: string
          workspace_id: string
        }
        Update: {
          date?: string
          fetched_at?: string
          followers_count?: number | null
          id?: string
          impressions?: number
          period_end?: string
          period_start?: string
          reach?: number
          social_account_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "social_account_insights_social_account_id_fkey"
            columns: ["social_account_id"]
            isOneToOne: false
            referencedRelation: "social_accounts"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "social_account_insights_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      social_accounts: {
        Row: {
          connected_at: string
          connected_by: string | null
          created_at: string
          disconnected_at: string | null
          display_name: string | null
          followers_count: number | null
          id: string
          is_active: boolean
          late_account_id: string
          late_profile_id: string
          platform: string
          profile_picture: string | null
          profile_url: string | null
          updated_at: string
          username: string | null
          workspace_id: string
        }
        Insert: {
          connected_at?: string
          connected_by?: string | null
          created_at?: string
          disconnected_at?: string | null
          display_name?: string | null
          followers_count?: number | null
          id?: string
          is_active?: boolean
          late_account_id: string
          late_profile_id: string
          platform: string
          profile_picture?: string | null
          profile_url?: string | null
          updated_at?: string
          username?: string | null
          workspace_id: string
        }
        Update: {
          connected_at?: string
          connected_by?: string | null
          created_at?: string
          disconnected_at?: string | null
          display_name?: string | null
          followers_count?: number | null
          id?: string
          is_active?: boolean
          late_account_id?: string
          late_profile_id?: string
          platform?: string
          profile_picture?: string | null
          profile_url?: string | null
          updated_at?: string
          username?: string | null
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "social_accounts_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      social_oauth_states: {
        Row: {
          created_at: string
          expires_at: string
          id: string
          nonce_hash: string
          platform: string
          used_at: string | null
          user_id: string
          workspace_id: string
        }
        Insert: {
          created_at?: string
          expires_at: string
          id?: string
          nonce_hash: string
          platform: string
          used_at?: string | null
          user_id: string
          workspace_id: string
        }
        Update: {
          created_at?: string
          expires_at?: string
          id?: string
          nonce_hash?: string
          platform?: string
          used_at?: string | null
          user_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "social_oauth_states_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      social_post_analytics: {
        Row: {
          clicks: number
          comments: number
          engagement_rate: number | null
          fetched_at: string | null
          impressions: number
          likes: number
          post_id: string
          reach: number
          saves: number
          shares: number
          social_account_id: string
          updated_at: string
          views: number
          workspace_id: string
        }
        Insert: {
          clicks?: number
          comments?: number
          engagement_rate?: number | null
          fetched_at?: string | null
          impressions?: number
          likes?: number
          post_id: string
          reach?: number
          saves?: number
          shares?: number
          social_account_id: string
          updated_at?: string
          views?: number
          workspace_id: string
        }
        Update: {
          clicks?: number
          comments?: number
          engagement_rate?: number | null
          fetched_at?: string | null
          impressions?: number
          likes?: number
          post_id?: string
          reach?: number
          saves?: number
          shares?: number
          social_account_id?: string
          updated_at?: string
          views?: number
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "social_post_analytics_post_id_fkey"
            columns: ["post_id"]
            isOneToOne: true
            referencedRelation: "social_posts"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "social_post_analytics_social_account_id_fkey"
            columns: ["social_account_id"]
            isOneToOne: false
            referencedRelation: "social_accounts"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "social_post_analytics_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      social_posts: {
        Row: {
          claimed_at: string | null
          content: string
          created_at: string
          created_by: string | null
          error_message: string | null
          id: string
          late_post_id: string | null
          media_type: string | null
          media_url: string | null
          platform: string
          platform_post_id: string | null
          platform_post_url: string | null
          publish_attempts: number
          published_at: string | null
          scheduled_at: string | null
          social_account_id: string
          status: string
          updated_at: string
          workspace_id: string
        }
        Insert: {
          claimed_at?: string | null
          content: string
          created_at?: string
          created_by?: string | null
          error_message?: string | null
          id?: string
          late_post_id?: string | null
          media_type?: string | null
          media_url?: string | null
          platform: string
          platform_post_id?: string | null
          platform_post_url?: string | null
          publish_attempts?: number
          published_at?: string | null
          scheduled_at?: string | null
          social_account_id: string
          status: string
          updated_at?: string
          workspace_id: string
        }
        Update: {
          claimed_at?: string | null
          content?: string
          created_at?: string
          created_by?: string | null
          error_message?: string | null
          id?: string
          late_post_id?: string | null
          media_type?: string | null
          media_url?: string | null
          platform?: string
          platform_post_id?: string | null
          platform_post_url?: string | null
          publish_attempts?: number
          published_at?: string | null
          scheduled_at?: string | null
          social_account_id?: string
          status?: string
          updated_at?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "social_posts_social_account_id_fkey"
            columns: ["social_account_id"]
            isOneToOne: false
            referencedRelation: "social_accounts"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "social_posts_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      social_profiles: {
        Row: {
          created_at: string
          late_profile_id: string
          workspace_id: string
        }
        Insert: {
          created_at?: string
          late_profile_id: string
          workspace_id: string
        }
        Update: {
          created_at?: string
          late_profile_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "social_profiles_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: true
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      social_webhook_events: {
        Row: {
          event_id: string
          event_type: string
          late_post_id: string | null
          outcome: string
          received_at: string
        }
        Insert: {
          event_id: string
          event_type: string
          late_post_id?: string | null
          outcome?: string
          received_at?: string
        }
        Update: {
          event_id?: string
          event_type?: string
          late_post_id?: string | null
          outcome?: string
          received_at?: string
        }
        Relationships: []
      }
      subscription_plans: {
        Row: {
          billing_interval: string
          created_at: string
          currency: string
          description: string | null
          id: string
          is_active: boolean
          name: string
          price: number
          provider_price_id: string
          tier: string
        }
        Insert: {
          billing_interval?: string
          created_at?: string
          currency?: string
          description?: string | null
          id?: string
          is_active?: boolean
          name: string
          price: number
          provider_price_id: string
          tier: string
        }
        Update: {
          billing_interval?: string
          created_at?: string
          currency?: string
          description?: string | null
          id?: string
          is_active?: boolean
          name?: string
          price?: number
          provider_price_id?: string
          tier?: string
        }
        Relationships: []
      }
      subscriptions: {
        Row: {
          cancel_at_period_end: boolean
          canceled_at: string | null
          created_at: string
          current_period_end: string | null
          current_period_start: string | null
          id: string
          last_event_at: string
          plan_id: string | null
          provider_customer_id: string
          provider_subscription_id: string
          status: string
          updated_at: string
          user_id: string
        }
        Insert: {
          cancel_at_period_end?: boolean
          canceled_at?: string | null
          created_at?: string
          current_period_end?: string | null
          current_period_start?: string | null
          id?: string
          last_event_at: string
          plan_id?: string | null
          provider_customer_id: string
          provider_subscription_id: string
          status: string
          updated_at?: string
          user_id: string
        }
        Update: {
          cancel_at_period_end?: boolean
          canceled_at?: string | null
          created_at?: string
          current_period_end?: string | null
          current_period_start?: string | null
          id?: string
          last_event_at?: string
          plan_id?: string | null
          provider_customer_id?: string
          provider_subscription_id?: string
          status?: string
          updated_at?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "subscriptions_plan_id_fkey"
            columns: ["plan_id"]
            isOneToOne: false
            referencedRelation: "subscription_plans"
            referencedColumns: ["id"]
          },
        ]
      }
      user_credits: {
        Row: {
          balance: number
          created_at: string
          id: string
          updated_at: string
          user_id: string
        }
        Insert: {
          balance?: number
          created_at?: string
          id?: string
          updated_at?: string
          user_id: string
        }
        Update: {
          balance?: number
          created_at?: string
          id?: string
          updated_at?: string
          user_id?: string
        }
        Relationships: []
      }
      user_profiles: {
        Row: {
          created_at: string
          id: string
          payment_customer_id: string | null
          role_id: string | null
          status: string
          subscription_tier: string
          updated_at: string
          user_id: string
        }
        Insert: {
          created_at?: string
          id?: string
          payment_customer_id?: string | null
          role_id?: string | null
          status?: string
          subscription_tier?: string
          updated_at?: string
          user_id: string
        }
        Update: {
          created_at?: string
          id?: string
          payment_customer_id?: string | null
          role_id?: string | null
          status?: string
          subscription_tier?: string
          updated_at?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "user_profiles_role_id_fkey"
            columns: ["role_id"]
            isOneToOne: false
            referencedRelation: "roles"
            referencedColumns: ["id"]
          },
        ]
      }
      vr_worlds: {
        Row: {
          caption: string | null
          charge_transaction_id: string | null
          collider_glb_url: string | null
          completed_at: string | null
          created_at: string
          credits_charged: number
          credits_refunded: boolean
          error: string | null
          id: string
          model: string
          operation_id: string | null
          panorama_url: string | null
          prompt: string
          room_type: string | null
          source_image_url: string
          splat_url_100k: string | null
          splat_url_500k: string | null
          splat_url_full: string | null
          status: string
          style: string | null
          thumbnail_url: string | null
          updated_at: string
          user_id: string
          workspace_id: string | null
          world_id: string | null
          world_marble_url: string | null
        }
        Insert: {
          caption?: string | null
          charge_transaction_id?: string | null
          collider_glb_url?: string | null
          completed_at?: string | null
          created_at?: string
          credits_charged?: number
          credits_refunded?: boolean
          error?: string | null
          id?: string
          model: string
          operation_id?: string | null
          panorama_url?: string | null
          prompt: string
          room_type?: string | null
          source_image_url: string
          splat_url_100k?: string | null
          splat_url_500k?: string | null
          splat_url_full?: string | null
          status?: string
          style?: string | null
          thumbnail_url?: string | null
          updated_at?: string
          user_id: string
          workspace_id?: string | null
          world_id?: string | null
          world_marble_url?: string | null
        }
        Update: {
          caption?: string | null
          charge_transaction_id?: string | null
          collider_glb_url?: string | null
          completed_at?: string | null
          created_at?: string
          credits_charged?: number
          credits_refunded?: boolean
          error?: string | null
          id?: string
          model?: string
          operation_id?: string | null
          panorama_url?: string | null
          prompt?: string
          room_type?: string | null
          source_image_url?: string
          splat_url_100k?: string | null
          splat_url_500k?: string | null
          splat_url_full?: string | null
          status?: string
          style?: string | null
          thumbnail_url?: string | null
          updated_at?: string
          user_id?: string
          workspace_id?: string | null
          world_id?: string | null
          world_marble_url?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "vr_worlds_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      workspace_invitations: {
        Row: {
          created_at: string
          expires_at: string
          id: string
          invited_by: string | null
          invitee_email: string | null
          invitee_user_id: string | null
          responded_at: string | null
          role: string
          status: string
          workspace_id: string
        }
        Insert: {
          created_at?: string
          expires_at?: string
          id?: string
          invited_by?: string | null
          invitee_email?: string | null
          invitee_user_id?: string | null
          responded_at?: string | null
          role?: string
          status?: string
          workspace_id: string
        }
        Update: {
          created_at?: string
          expires_at?: string
          id?: string
          invited_by?: string | null
          invitee_email?: string | null
          invitee_user_id?: string | null
          responded_at?: string | null
          role?: string
          status?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "workspace_invitations_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      workspace_members: {
        Row: {
          created_at: string
          role: string
          user_id: string
          workspace_id: string
        }
        Insert: {
          created_at?: string
          role?: string
          user_id: string
          workspace_id: string
        }
        Update: {
          created_at?: string
          role?: string
          user_id?: string
          workspace_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "workspace_members_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
      workspaces: {
        Row: {
          created_at: string
          id: string
          is_personal: boolean
          name: string
          owner_id: string
          settings: NonNullable<Json>
          slug: string | null
          updated_at: string
        }
        Insert: {
          created_at?: string
          id?: string
          is_personal?: boolean
          name: string
          owner_id?: string
          settings?: NonNullable<Json>
          slug?: string | null
          updated_at?: string
        }
        Update: {
          created_at?: string
          id?: string
          is_personal?: boolean
          name?: string
          owner_id?: string
          settings?: NonNullable<Json>
          slug?: string | null
          updated_at?: string
        }
        Relationships: []
      }
    }
    Views: {
      crm_user_records: {
        Row: {
          created_at: string | null
          credits: number | null
          id: string | null
          role_id: string | null
          role_level: number | null
          role_name: string | null
          status: string | null
          subscription_tier: string | null
          user_id: string | null
        }
        Relationships: [
          {
            foreignKeyName: "user_profiles_role_id_fkey"
            columns: ["role_id"]
            isOneToOne: false
            referencedRelation: "roles"
            referencedColumns: ["id"]
          },
        ]
      }
      quote_item_totals: {
        Row: {
          created_at: string | null
          discounted_price: number | null
          effective_unit_price: number | null
          id: string | null
          label: string | null
          line_total: number | null
          list_total: number | null
          notes: string | null
          position: number | null
          price_source: string | null
          product_id: string | null
          quantity: number | null
          quote_id: string | null
          unit: string | null
          unit_price: number | null
          workspace_id: string | null
        }
        Relationships: [
          {
            foreignKeyName: "quote_items_product_id_workspace_id_fkey"
            columns: ["product_id", "workspace_id"]
            isOneToOne: false
            referencedRelation: "products"
            referencedColumns: ["id", "workspace_id"]
          },
          {
            foreignKeyName: "quote_items_quote_id_workspace_id_fkey"
            columns: ["quote_id", "workspace_id"]
            isOneToOne: false
            referencedRelation: "quote_totals"
            referencedColumns: ["quote_id", "workspace_id"]
          },
          {
            foreignKeyName: "quote_items_quote_id_workspace_id_fkey"
            columns: ["quote_id", "workspace_id"]
            isOneToOne: false
            referencedRelation: "quotes"
            referencedColumns: ["id", "workspace_id"]
          },
        ]
      }
      quote_totals: {
        Row: {
          currency: string | null
          discount_total: number | null
          item_count: number | null
          quote_id: string | null
          subtotal: number | null
          total: number | null
          unpriced_item_count: number | null
          workspace_id: string | null
        }
        Relationships: [
          {
            foreignKeyName: "quotes_workspace_id_fkey"
            columns: ["workspace_id"]
            isOneToOne: false
            referencedRelation: "workspaces"
            referencedColumns: ["id"]
          },
        ]
      }
    }
    Functions: {
      accept_workspace_invitation: {
        Args: { p_invitation_id: string }
        Returns: Json
      }
      admin_cleanup_candidates: {
        Args: {
          p_grace_minutes: number
          p_limit: number
          p_older_than_days: number
        }
        Returns: Json
      }
      admin_job_queue: { Args: { p_stale_before: string }; Returns: Json }
      admin_system_metrics: { Args: Record<PropertyKey, never>; Returns: Json }
      admin_update_prompt: {
        Args: {
          p_category: string
          p_change_reason: string
          p_description: string
          p_prompt_text: string
          p_stage: string
          p_user: string
        }
        Returns: Json
      }
      agent_advance_schedule: {
        Args: { p_agent_id: string; p_next: string; p_slot: string }
        Returns: undefined
      }
      agent_claim_due: {
        Args: { p_limit?: number; p_now?: string }
        Returns: {
          agent_id: string
          run_id: string
          scheduled_for: string
          workspace_id: string
        }[]
      }
      agent_run_begin: {
        Args: { p_msg_id: number; p_read_ct: number; p_run_id: string }
        Returns: boolean
      }
      agent_run_queue_read: {
        Args: { p_qty: number; p_vt: number }
        Returns: {
          msg_id: number
          read_ct: number
          run_id: string
        }[]
      }
      agent_run_queue_release: {
        Args: { p_msg_ids: number[]; p_read_cts: number[] }
        Returns: number
      }
      agent_runs_enqueue: { Args: { p_run_ids: string[] }; Returns: number }
      agent_save_product_descriptions: {
        Args: { p_items: Json; p_workspace_id: string }
        Returns: number
      }
      ai_jobs_status_counts: { Args: Record<PropertyKey, never>; Returns: Json }
      ai_jobs_uploaded_bytes: {
        Args: Record<PropertyKey, never>
        Returns: number
      }
      apply_subscription_event: {
        Args: {
          p_cancel_at_period_end: boolean
          p_canceled_at: string
          p_customer_id: string
          p_event_created: string
          p_event_id: string
          p_event_type: string
          p_period_end: string
          p_period_start: string
          p_price_id: string
          p_status: string
          p_subscription_id: string
        }
        Returns: Json
      }
      bill_agent_chat: {
        Args: {
          p_agent_id: string
          p_model: string
          p_reference_id?: string
          p_user_id: string
          p_workspace_id?: string
        }
        Returns: Json
      }
      bill_gateway_action: {
        Args: {
          p_action: string
          p_cost_key: string
          p_metadata?: Json
          p_quantity?: number
          p_reference_id?: string
          p_user_id: string
          p_workspace_id?: string
        }
        Returns: Json
      }
      call_edge_function: {
        Args: { p_body?: Json; p_path: string; p_timeout_ms?: number }
        Returns: number
      }
      complete_payment_checkout: {
        Args: {
          p_amount_total: number
          p_currency: string
          p_event_id: string
          p_event_type: string
          p_payment_status: string
          p_session_id: string
        }
        Returns: Json
      }
      crm_delete_user_records: { Args: { p_user_id: string }; Returns: Json }
      crm_may_look_up_accounts: {
        Args: Record<PropertyKey, never>
        Returns: boolean
      }
      crm_row_visible: { Args: { owner: string }; Returns: boolean }
      current_platform_role: {
        Args: Record<PropertyKey, never>
        Returns: string
      }
      debit_credits: {
        Args: {
          p_action: string
          p_amount: number
          p_metadata?: Json
          p_reference_id?: string
          p_user_id: string
        }
        Returns: Json
      }
      decline_workspace_invitation: {
        Args: { p_invitation_id: string }
        Returns: undefined
      }
      email_apply_event: {
        Args: {
          p_at: string
          p_details?: Json
          p_event: string
          p_log_id: string
        }
        Returns: string
      }
      email_apply_webhook: {
        Args: {
          p_at: string
          p_details?: Json
          p_event: string
          p_provider_message_id: string
          p_svix_id: string
        }
        Returns: string
      }
      email_refresh_domain: {
        Args: { p_domain_id: string }
        Returns: undefined
      }
      email_status_rank: { Args: { s: string }; Returns: number }
      expire_payment_checkout: {
        Args: { p_event_id: string; p_event_type: string; p_session_id: string }
        Returns: Json
      }
      flow_advance_schedule: {
        Args: { p_flow_id: string; p_next: string; p_slot: string }
        Returns: undefined
      }
      flow_claim_due: {
        Args: { p_limit?: number; p_now?: string }
        Returns: {
          flow_id: string
          run_id: string
          scheduled_for: string
          workspace_id: string
        }[]
      }
      flow_emit_event: {
        Args: { p_data: Json; p_event_type: string; p_workspace_id: string }
        Returns: undefined
      }
      flow_run_begin: {
        Args: { p_msg_id: number; p_read_ct: number; p_run_id: string }
        Returns: boolean
      }
      flow_run_queue_read: {
        Args: { p_qty: number; p_vt: number }
        Returns: {
          msg_id: number
          read_ct: number
          run_id: string
        }[]
      }
      flow_run_queue_release: {
        Args: { p_msg_ids: number[]; p_read_cts: number[] }
        Returns: number
      }
      flow_webhook_claim_delivery: {
        Args: {
          p_delivery_id: string
          p_flow_id: string
          p_keep_seconds: number
          p_signed_at: string
        }
        Returns: boolean
      }
      get_my_access: { Args: Record<PropertyKey, never>; Returns: Json }
      grant_credits: {
        Args: {
          p_action?: string
          p_amount: number
          p_kind?: string
          p_metadata?: Json
          p_reference_id?: string
          p_user_id: string
        }
        Returns: Json
      }
      has_platform_role: { Args: { role_names: string[] }; Returns: boolean }
      has_workspace_role: {
        Args: { roles: string[]; ws: string }
        Returns: boolean
      }
      invite_to_workspace: {
        Args: { p_invitee: string; p_role?: string; p_workspace_id: string }
        Returns: Json
      }
      is_invitee: {
        Args: { p_email: string; p_user_id: string }
        Returns: boolean
      }
      is_safe_object_path: { Args: { p: string }; Returns: boolean }
      is_workspace_admin: { Args: { ws: string }; Returns: boolean }
      is_workspace_member: { Args: { ws: string }; Returns: boolean }
      kb_embedding_bits: { Args: { p_embedding: string }; Returns: unknown }
      kb_hybrid_search: {
        Args: {
          p_access_levels?: string[]
          p_category_id?: string
          p_category_slug?: string
          p_match_count?: number
          p_match_threshold?: number
          p_price_doc_types?: string[]
          p_query_embedding: string
          p_query_sketch?: unknown
          p_query_text: string
          p_require_published?: boolean
          p_vector_weight?: number
          p_workspace_id: string
        }
        Returns: {
          access_level: string
          category_id: string
          category_name: string
          category_slug: string
          chunk_id: string
          chunk_index: number
          content: string
          doc_id: string
          document_title: string
          heading: string
          price_doc_type: string
          relevance_score: number
          status: string
          text_score: number
          vector_score: number
        }[]
      }
      kb_readable_category_ids: {
        Args: Record<PropertyKey, never>
        Returns: string[]
      }
      kb_replace_chunks: {
        Args: { p_chunks: Json; p_doc_id: string; p_embedding_model: string }
        Returns: number
      }
      kb_stats: { Args: { p_workspace_id?: string }; Returns: Json }
      kb_text_candidates: {
        Args: {
          p_category_ids: string[]
          p_exclude: unknown
          p_limit: number
          p_match: unknown
          p_price_doc_types: string[]
          p_require_published: boolean
          p_uncategorised: boolean
          p_workspace_id: string
        }
        Returns: string[]
      }
      kb_update_document: {
        Args: {
          p_chunks?: Json
          p_content_hash?: string
          p_doc_id: string
          p_embedding_model?: string
          p_patch: Json
        }
        Returns: Json
      }
      kb_upsert_document: {
        Args: {
          p_assumed_id?: string
          p_category_id: string
          p_chunks?: Json
          p_content: string
          p_content_hash: string
          p_embedding_model?: string
          p_metadata?: Json
          p_price?: Json
          p_price_doc_type?: string
          p_source?: string
          p_status?: string
          p_sync_price?: boolean
          p_title: string
          p_workspace_id: string
        }
        Returns: Json
      }
      kb_upsert_documents: {
        Args: { p_documents: Json; p_workspace_id: string }
        Returns: Json
      }
      kb_workspace_ids: { Args: { p_roles?: string[] }; Returns: string[] }
      log_agent_tool_call: {
        Args: {
          p_agent_id?: string
          p_conversation_id?: string
          p_duration_ms?: number
          p_result_summary: Json
          p_tool_args: Json
          p_tool_name: string
          p_workspace_id: string
          p_zero_result: boolean
        }
        Returns: string
      }
      may_set_quote_request_status: {
        Args: { p_requester: string; p_status: string; p_workspace_id: string }
        Returns: boolean
      }
      merge_products: {
        Args: {
          p_reason?: string
          p_similarity?: number
          p_sources: string[]
          p_strategy?: string
          p_target: string
        }
        Returns: {
          id: string
          is_undone: boolean
          merge_reason: string | null
          merge_strategy: string
          merged_at: string
          merged_by: string | null
          moved_relationships: NonNullable<Json>
          removed_rows: NonNullable<Json>
          similarity_score: number | null
          source_product_ids: string[]
          source_product_names: string[]
          source_products_snapshot: NonNullable<Json>
          target_product_after_merge: NonNullable<Json>
          target_product_before_merge: NonNullable<Json>
          target_product_id: string
          target_product_name: string
          undone_at: string | null
          undone_by: string | null
          workspace_id: string
        }
        SetofOptions: {
          from: "*"
          to: "product_merge_history"
          isOneToOne: true
          isSetofReturn: false
        }
      }
      messaging_analytics: {
        Args: {
          end_at: string
          only_type: string
          start_at: string
          ws: string
        }
        Returns: Json
      }
      messaging_apply_status: {
        Args: {
          at: string
          err_code?: string
          err_message?: string
          price?: number
          price_unit?: string
          provider_status: string
          sid: string
        }
        Returns: string
      }
      messaging_bulk_claim: {
        Args: {
          p_bulk_id: string
          p_horizon_ms: number
          p_lease: number
          p_max: number
          p_msg_id: number
          p_now: string
        }
        Returns: Json
      }
      messaging_bulk_enqueue: {
        Args: { p_bulk: Json; p_recipients: Json }
        Returns: number
      }
      messaging_bulk_finish: {
        Args: { p_bulk_id: string; p_msg_id: number; p_now: string }
        Returns: boolean
      }
      messaging_bulk_progress: {
        Args: { p_bulk_id: string }
        Returns: {
          n: number
          status: string
        }[]
      }
      messaging_bulk_read: {
        Args: { p_vt: number }
        Returns: {
          bulk_id: string
          msg_id: number
          read_ct: number
        }[]
      }
      messaging_bulk_record: {
        Args: { p_outcome: Json; p_recipient_id: number }
        Returns: boolean
      }
      messaging_bulk_release: {
        Args: { p_delay: number; p_msg_id: number }
        Returns: undefined
      }
      messaging_status_rank: { Args: { status: string }; Returns: number }
      owns_quote_request: { Args: { p_request_id: string }; Returns: boolean }
      pdf_batch_cancel: { Args: { p_batch: string }; Returns: string }
      pdf_batch_claim_next: {
        Args: { p_batch: string }
        Returns: {
          batch_id: string
          completed_at: string | null
          document_id: string
          error: string | null
          extraction_type: string
          id: string
          position: number
          priority: string
          started_at: string | null
          status: string
        }[]
        SetofOptions: {
          from: "*"
          to: "pdf_batch_items"
          isOneToOne: false
          isSetofReturn: true
        }
      }
      pdf_batch_finish_item: {
        Args: { p_error: string; p_item: string; p_ok: boolean }
        Returns: string
      }
      pipeline_checkpoint: {
        Args: {
          p_job: string
          p_now: string
          p_output: Json
          p_progress: number
          p_stage: string
        }
        Returns: undefined
      }
      pipeline_claim_job: {
        Args: { p_job: string; p_now: string; p_stale_before: string }
        Returns: {
          ai_config: Json | null
          attempts: number
          completed_at: string | null
          content_type: string | null
          created_at: string
          credit_transaction_id: string | null
          current_stage: string | null
          document_id: string | null
          error: string | null
          filename: string | null
          heartbeat_at: string | null
          id: string
          job_type: string
          message: string | null
          metadata: NonNullable<Json>
          progress: number
          queued_at: string | null
          size_bytes: number | null
          started_at: string | null
          status: string
          storage_bucket: string | null
          storage_path: string | null
          updated_at: string
          user_id: string
          workspace_id: string | null
        }[]
        SetofOptions: {
          from: "*"
          to: "ai_jobs"
          isOneToOne: false
          isSetofReturn: true
        }
      }
      pipeline_claim_queued_job: {
        Args: { p_max_runs: number; p_now: string; p_stale_before: string }
        Returns: {
          ai_config: Json | null
          attempts: number
          completed_at: string | null
          content_type: string | null
          created_at: string
          credit_transaction_id: string | null
          current_stage: string | null
          document_id: string | null
          error: string | null
          filename: string | null
          heartbeat_at: string | null
          id: string
          job_type: string
          message: string | null
          metadata: NonNullable<Json>
          progress: number
          queued_at: string | null
          size_bytes: number | null
          started_at: string | null
          status: string
          storage_bucket: string | null
          storage_path: string | null
          updated_at: string
          user_id: string
          workspace_id: string | null
        }[]
        SetofOptions: {
          from: "*"
          to: "ai_jobs"
          isOneToOne: false
          isSetofReturn: true
        }
      }
      pipeline_fail_abandoned_jobs: {
        Args: { p_max_runs: number; p_now: string; p_stale_before: string }
        Returns: {
          ai_config: Json | null
          attempts: number
          completed_at: string | null
          content_type: string | null
          created_at: string
          credit_transaction_id: string | null
          current_stage: string | null
          document_id: string | null
          error: string | null
          filename: string | null
          heartbeat_at: string | null
          id: string
          job_type: string
          message: string | null
          metadata: NonNullable<Json>
          progress: number
          queued_at: string | null
          size_bytes: number | null
          started_at: string | null
          status: string
          storage_bucket: string | null
          storage_path: string | null
          updated_at: string
          user_id: string
          workspace_id: string | null
        }[]
        SetofOptions: {
          from: "*"
          to: "ai_jobs"
          isOneToOne: false
          isSetofReturn: true
        }
      }
      pipeline_job_statistics: {
        Args: Record<PropertyKey, never>
        Returns: Json
      }
      pipeline_reset_job: { Args: { p_job: string }; Returns: undefined }
      pipeline_stage_started: {
        Args: {
          p_job: string
          p_now: string
          p_progress: number
          p_stage: string
        }
        Returns: undefined
      }
      price_index_entries: {
        Args: { p_parser_version: string; p_workspace_id: string }
        Returns: {
          entries: Json
          kb_doc_id: string
        }[]
      }
      price_index_state: {
        Args: { p_parser_version: string; p_workspace_id: string }
        Returns: Json
      }
      price_index_version: { Args: { p_workspace_id: string }; Returns: number }
      price_lookup_stats: {
        Args: { p_days?: number; p_workspace_id: string }
        Returns: Json
      }
      price_monitoring_claim_due: {
        Args: { p_limit?: number }
        Returns: {
          frequency: string
          monitoring_id: string
          product_id: string
          started_by: string
          workspace_id: string
        }[]
      }
      price_monitoring_interval: {
        Args: { p_frequency: string }
        Returns: string
      }
      price_monitoring_record: {
        Args: {
          p_credits_consumed: number
          p_credits_refunded: number
          p_job: string
          p_results: Json
        }
        Returns: Json
      }
      price_monitoring_status: { Args: { p_product: string }; Returns: Json }
      quote_document: { Args: { p_quote_id: string }; Returns: Json }
      quote_pdf_visible: { Args: { name: string }; Returns: boolean }
      rag_search_chunks: {
        Args: {
          p_categories?: string[]
          p_date_from?: string
          p_date_to?: string
          p_document_ids?: string[]
          p_match_count?: number
          p_min_score?: number
          p_mode?: string
          p_page_from?: number
          p_page_to?: number
          p_product_ids?: string[]
          p_query_embedding: string
          p_query_text: string
          p_with_embedding?: boolean
          p_workspace_id?: string
        }
        Returns: {
          chunk_id: string
          chunk_index: number
          content: string
          document_filename: string
          document_id: string
          embedding: string
          page_end: number
          page_start: number
          product_id: string
          product_name: string
          score: number
          text_rank: number
          text_score: number
          vector_rank: number
          vector_score: number
          workspace_id: string
        }[]
      }
      rag_search_images: {
        Args: {
          p_color?: string
          p_date_from?: string
          p_date_to?: string
          p_document_ids?: string[]
          p_exclude_image?: string
          p_match_count?: number
          p_material?: string
          p_min_score?: number
          p_page_from?: number
          p_page_to?: number
          p_product_ids?: string[]
          p_style?: string
          p_texture?: string
          p_visual?: string
          p_weights?: number[]
          p_workspace_id?: string
        }
        Returns: {
          category: string
          chunk_id: string
          chunk_index: number
          color_score: number
          content: string
          document_filename: string
          document_id: string
          filename: string
          image_id: string
          material_score: number
          page_end: number
          page_number: number
          page_start: number
          product_id: string
          product_name: string
          score: number
          storage_url: string
          style_score: number
          texture_score: number
          visual_score: number
          workspace_id: string
        }[]
      }
      rag_search_records: {
        Args: {
          p_caller?: string
          p_match_count?: number
          p_query_text: string
          p_threshold?: number
          p_types: string[]
          p_workspace_id: string
        }
        Returns: {
          category: string
          content: string
          document_id: string
          id: string
          page_end: number
          page_start: number
          relevance_score: number
          title: string
          type: string
        }[]
      }
      rag_stop_words: { Args: Record<PropertyKey, never>; Returns: string[] }
      rag_tsquery: {
        Args: { p_all?: boolean; p_text: string }
        Returns: unknown
      }
      rag_tsquery_most: { Args: { p_text: string }; Returns: unknown }
      rag_visible_documents: {
        Args: {
          p_date_from?: string
          p_date_to?: string
          p_document_ids?: string[]
          p_workspace_id?: string
        }
        Returns: string[]
      }
      rate_limit_hit: {
        Args: {
          p_key: string
          p_limit: number
          p_scope: string
          p_window_seconds: number
        }
        Returns: Json
      }
      recommendation_analytics: {
        Args: { p_days: number; p_workspace: string }
        Returns: Json
      }
      recommendation_item_neighbourhood: {
        Args: { p_k: number; p_sources: string[]; p_workspace: string }
        Returns: Json
      }
      recommendation_popular: {
        Args: { p_exclude: string[]; p_limit: number; p_workspace: string }
        Returns: Json
      }
      recommendation_user_neighbourhood: {
        Args: { p_k: number; p_user: string; p_workspace: string }
        Returns: Json
      }
      refund_credits: {
        Args: { p_debit_id: string; p_reason?: string }
        Returns: Json
      }
      refund_gateway_action: {
        Args: { p_reason: string; p_transaction_id: string }
        Returns: Json
      }
      scraping_claim_pages: {
        Args: {
          p_limit: number
          p_now: string
          p_session: string
          p_stale_before: string
          p_worker: string
        }
        Returns: {
          attempts: number
          claimed_at: string | null
          claimed_by: string | null
          completed_at: string | null
          created_at: string
          error: string | null
          extraction_method: string | null
          http_status: number | null
          id: string
          materials_found: number
          position: number
          processing_time_ms: number | null
          session_id: string
          status: string
          url: string
          workspace_id: string
        }[]
        SetofOptions: {
          from: "*"
          to: "scraping_pages"
          isOneToOne: false
          isSetofReturn: true
        }
      }
      scraping_claim_session: {
        Args: {
          p_now: string
          p_session: string
          p_stale_before: string
          p_worker: string
        }
        Returns: {
          category: string | null
          completed_at: string | null
          created_at: string
          created_by: string | null
          error: string | null
          failed_pages: number
          heartbeat_at: string | null
          id: string
          materials_found: number
          name: string
          options: NonNullable<Json>
          paused_at: string | null
          processed_pages: number
          products_created: number
          source_url: string | null
          started_at: string | null
          status: string
          total_pages: number
          updated_at: string
          worker_id: string | null
          workspace_id: string
        }[]
        SetofOptions: {
          from: "*"
          to: "scraping_sessions"
          isOneToOne: false
          isSetofReturn: true
        }
      }
      scraping_complete_page: {
        Args: {
          p_materials: Json
          p_now: string
          p_ok: boolean
          p_page: string
          p_result: Json
          p_worker: string
        }
        Returns: string[]
      }
      scraping_create_product: {
        Args: { p_attempts: number; p_material: string }
        Returns: string
      }
      scraping_fail_session: {
        Args: {
          p_error: string
          p_now: string
          p_session: string
          p_worker: string
        }
        Returns: undefined
      }
      scraping_finish_session: {
        Args: { p_now: string; p_session: string; p_worker: string }
        Returns: string
      }
      scraping_material_failed: {
        Args: { p_attempts: number; p_error: string; p_material: string }
        Returns: undefined
      }
      scraping_orphaned_sessions: {
        Args: { p_limit: number; p_stale_before: string }
        Returns: string[]
      }
      scraping_session_action: {
        Args: { p_action: string; p_now: string; p_session: string }
        Returns: {
          category: string | null
          completed_at: string | null
          created_at: string
          created_by: string | null
          error: string | null
          failed_pages: number
          heartbeat_at: string | null
          id: string
          materials_found: number
          name: string
          options: NonNullable<Json>
          paused_at: string | null
          processed_pages: number
          products_created: number
          source_url: string | null
          started_at: string | null
          status: string
          total_pages: number
          updated_at: string
          worker_id: string | null
          workspace_id: string
        }
        SetofOptions: {
          from: "*"
          to: "scraping_sessions"
          isOneToOne: true
          isSetofReturn: false
        }
      }
      scraping_session_transition_allowed: {
        Args: { p_from: string; p_to: string }
        Returns: boolean
      }
      search_analytics_summary: {
        Args: { p_days: number; p_workspaces: string[] }
        Returns: Json
      }
      search_autocomplete: {
        Args: { p_limit?: number; p_prefix: string; p_workspaces: string[] }
        Returns: Json
      }
      search_autocomplete_contains: {
        Args: { p_limit: number; p_pat: string; p_workspace: string }
        Returns: Json
      }
      search_normalize: { Args: { p_text: string }; Returns: string }
      search_query_expansion: {
        Args: { p_query: string; p_workspaces: string[] }
        Returns: Json
      }
      search_recommendations: {
        Args: { p_limit: number; p_user: string; p_workspaces: string[] }
        Returns: Json
      }
      search_trending: {
        Args: { p_days: number; p_limit: number; p_workspaces: string[] }
        Returns: Json
      }
      search_typo_correction: {
        Args: { p_query: string; p_workspaces: string[] }
        Returns: Json
      }
      search_words: { Args: { p_text: string }; Returns: string[] }
      seo_article_checkpoint: {
        Args: {
          p_fix_iterations?: number
          p_id: string
          p_output: Json
          p_progress: number
          p_stage: string
          p_worker: string
        }
        Returns: boolean
      }
      seo_article_claim: {
        Args: { p_id: string; p_stale_before: string; p_worker: string }
        Returns: {
          additional_instructions: string | null
          analysis: Json | null
          attempts: number
          auto_fix: boolean
          avg_competitor_score: number | null
          completed_at: string | null
          content_brief: NonNullable<Json>
          content_html: string | null
          content_markdown: string | null
          content_score: number | null
          created_at: string
          current_stage: string
          draft: Json | null
          error: string | null
          error_stage: string | null
          faq_schema: Json | null
          fix_iterations: number
          heartbeat_at: string | null
          id: string
          language_code: string
          location_code: number
          max_fix_iterations: number
          meta_description: string | null
          meta_title: string | null
          plan: Json | null
          progress_percentage: number
          research: Json | null
          schema_markup: Json | null
          skip_research: boolean
          slug: string | null
          status: string
          target_keyword: string
          title: string | null
          topic: string
          updated_at: string
          user_id: string
          word_count: number | null
          worker_id: string | null
          workspace_id: string | null
        }[]
        SetofOptions: {
          from: "*"
          to: "seo_articles"
          isOneToOne: false
          isSetofReturn: true
        }
      }
      seo_article_fail: {
        Args: { p_error: string; p_id: string; p_worker: string }
        Returns: boolean
      }
      seo_article_finalize: {
        Args: { p_article: Json; p_id: string; p_worker: string }
        Returns: {
          additional_instructions: string | null
          analysis: Json | null
          attempts: number
          auto_fix: boolean
          avg_competitor_score: number | null
          completed_at: string | null
          content_brief: NonNullable<Json>
          content_html: string | null
          content_markdown: string | null
          content_score: number | null
          created_at: string
          current_stage: string
          draft: Json | null
          error: string | null
          error_stage: string | null
          faq_schema: Json | null
          fix_iterations: number
          heartbeat_at: string | null
          id: string
          language_code: string
          location_code: number
          max_fix_iterations: number
          meta_description: string | null
          meta_title: string | null
          plan: Json | null
          progress_percentage: number
          research: Json | null
          schema_markup: Json | null
          skip_research: boolean
          slug: string | null
          status: string
          target_keyword: string
          title: string | null
          topic: string
          updated_at: string
          user_id: string
          word_count: number | null
          worker_id: string | null
          workspace_id: string | null
        }[]
        SetofOptions: {
          from: "*"
          to: "seo_articles"
          isOneToOne: false
          isSetofReturn: true
        }
      }
      seo_article_heartbeat: {
        Args: { p_id: string; p_worker: string }
        Returns: boolean
      }
      seo_article_progress: {
        Args: { p_id: string; p_progress: number; p_worker: string }
        Returns: boolean
      }
      seo_article_stage: {
        Args: {
          p_id: string
          p_progress: number
          p_stage: string
          p_worker: string
        }
        Returns: boolean
      }
      seo_stage_status: { Args: { p_stage: string }; Returns: string }
      settle_agent_chat: {
        Args: {
          p_input_tokens: number
          p_output_tokens: number
          p_refund_reason?: string
          p_usage_log_id: string
        }
        Returns: Json
      }
      social_apply_webhook_event: {
        Args: { p_event: string; p_event_id: string; p_payload: Json }
        Returns: string
      }
      social_claim_due_posts: {
        Args: { p_limit?: number; p_stale_after?: string }
        Returns: {
          claimed_at: string | null
          content: string
          created_at: string
          created_by: string | null
          error_message: string | null
          id: string
          late_post_id: string | null
          media_type: string | null
          media_url: string | null
          platform: string
          platform_post_id: string | null
          platform_post_url: string | null
          publish_attempts: number
          published_at: string | null
          scheduled_at: string | null
          social_account_id: string
          status: string
          updated_at: string
          workspace_id: string
        }[]
        SetofOptions: {
          from: "*"
          to: "social_posts"
          isOneToOne: false
          isSetofReturn: true
        }
      }
      store_duplicate_detections: {
        Args: { p_pairs: Json; p_workspace_id: string }
        Returns: Json
      }
      undo_merge: {
        Args: { p_history_id: string }
        Returns: {
          id: string
          is_undone: boolean
          merge_reason: string | null
          merge_strategy: string
          merged_at: string
          merged_by: string | null
          moved_relationships: NonNullable<Json>
          removed_rows: NonNullable<Json>
          similarity_score: number | null
          source_product_ids: string[]
          source_product_names: string[]
          source_products_snapshot: NonNullable<Json>
          target_product_after_merge: NonNullable<Json>
          target_product_before_merge: NonNullable<Json>
          target_product_id: string
          target_product_name: string
          undone_at: string | null
          undone_by: string | null
          workspace_id: string
        }
        SetofOptions: {
          from: "*"
          to: "product_merge_history"
          isOneToOne: true
          isSetofReturn: false
        }
      }
      update_duplicate_status: {
        Args: { p_cache_id: string; p_status: string }
        Returns: {
          confidence_level: string
          created_at: string
          description_similarity: number
          id: string
          is_duplicate: boolean
          metadata_similarity: number
          name_similarity: number
          overall_similarity_score: number
          product_id_1: string
          product_id_2: string
          reviewed_at: string | null
          reviewed_by: string | null
          similarity_breakdown: NonNullable<Json>
          status: string
          updated_at: string
          workspace_id: string
        }
        SetofOptions: {
          from: "*"
          to: "duplicate_detection_cache"
          isOneToOne: true
          isSetofReturn: false
        }
      }
      user_ai_usage_summary: { Args: { p_user_id: string }; Returns: Json }
    }
    Enums: {
      [_ in never]: never
    }
    CompositeTypes: {
      [_ in never]: never
    }
  }
}

type DatabaseWithoutInternals = Omit<Database, "__InternalSupabase">

type DefaultSchema = DatabaseWithoutInternals[Extract<keyof Database, "public">]

export type Tables<
  DefaultSchemaTableNameOrOptions extends
    | keyof (DefaultSchema["Tables"] & DefaultSchema["Views"])
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends (DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
        DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])
    : never) = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
      DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])[TableName] extends {
      Row: infer R
    }
    ? R
    : never
  : DefaultSchemaTableNameOrOptions extends keyof (DefaultSchema["Tables"] &
        DefaultSchema["Views"])
    ? (DefaultSchema["Tables"] &
        DefaultSchema["Views"])[DefaultSchemaTableNameOrOptions] extends {
        Row: infer R
      }
      ? R
      : never
    : never

export type TablesInsert<
  DefaultSchemaTableNameOrOptions extends
    | keyof DefaultSchema["Tables"]
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends (DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"]
    : never) = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"][TableName] extends {
      Insert: infer I
    }
    ? I
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][DefaultSchemaTableNameOrOptions] extends {
        Insert: infer I
      }
      ? I
      : never
    : never

export type TablesUpdate<
  DefaultSchemaTableNameOrOptions extends
    | keyof DefaultSchema["Tables"]
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends (DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"]
    : never) = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"][TableName] extends {
      Update: infer U
    }
    ? U
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][DefaultSchemaTableNameOrOptions] extends {
        Update: infer U
      }
      ? U
      : never
    : never

export type Enums<
  DefaultSchemaEnumNameOrOptions extends
    | keyof DefaultSchema["Enums"]
    | { schema: keyof DatabaseWithoutInternals },
  EnumName extends (DefaultSchemaEnumNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions["schema"]]["Enums"]
    : never) = never,
> = DefaultSchemaEnumNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions["schema"]]["Enums"][EnumName]
  : DefaultSchemaEnumNameOrOptions extends keyof DefaultSchema["Enums"]
    ? DefaultSchema["Enums"][DefaultSchemaEnumNameOrOptions]
    : never

export type CompositeTypes<
  PublicCompositeTypeNameOrOptions extends
    | keyof DefaultSchema["CompositeTypes"]
    | { schema: keyof DatabaseWithoutInternals },
  CompositeTypeName extends (PublicCompositeTypeNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions["schema"]]["CompositeTypes"]
    : never) = never,
> = PublicCompositeTypeNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions["schema"]]["CompositeTypes"][CompositeTypeName]
  : PublicCompositeTypeNameOrOptions extends keyof DefaultSchema["CompositeTypes"]
    ? DefaultSchema["CompositeTypes"][PublicCompositeTypeNameOrOptions]
    : never

export const Constants = {
  public: {
    Enums: {},
  },
} as const
